#include "runtime/engine/rendezvous.h"

#include <atomic>
#include <thread>

#include "core/status_matchers.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace minigraph {
namespace {

using ::testing::HasSubstr;

TEST(RendezvousTest, KeysAreTensorFlows) {
  const std::string key =
      RendezvousKey("/job:ps/replica:0/task:0/device:CPU:0", 123456789,
                    "/job:worker/replica:0/task:1/device:CPU:0", "edge_0_v/read");
  EXPECT_EQ(key,
            "/job:ps/replica:0/task:0/device:CPU:0;00000000075bcd15;"
            "/job:worker/replica:0/task:1/device:CPU:0;edge_0_v/read;0:0");
  ASSERT_OK_AND_ASSIGN(ParsedRendezvousKey p, ParseRendezvousKey(key));
  EXPECT_EQ(p.send_device, "/job:ps/replica:0/task:0/device:CPU:0");
  EXPECT_EQ(p.send_incarnation, 123456789u);
  EXPECT_EQ(p.tensor_name, "edge_0_v/read");
  EXPECT_THAT(ParseRendezvousKey("a;b").status(),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("'a;b'")));
}

TEST(RendezvousTest, RecvWaitsForSendInEitherOrder) {
  LocalRendezvous r;
  ASSERT_OK(r.Send("early", Tensor::Scalar<float>(1), false));
  Tensor t;
  bool dead = true;
  ASSERT_OK(r.Recv("early", {}, &t, &dead));
  EXPECT_EQ(*t.data<float>(), 1.0f);
  EXPECT_FALSE(dead);

  std::thread sender([&] { EXPECT_OK(r.Send("late", Tensor::Scalar<float>(2), false)); });
  ASSERT_OK(r.Recv("late", {}, &t, &dead));
  sender.join();
  EXPECT_EQ(*t.data<float>(), 2.0f);
  EXPECT_FALSE(r.TryRecv("late", &t, &dead));  // taken once
  ASSERT_OK(r.Send("twice", t, false));
  EXPECT_THAT(r.Send("twice", t, false), StatusIs(absl::StatusCode::kInvalidArgument));
}

TEST(RendezvousTest, AbortAndCancellationEndTheWait) {
  LocalRendezvous r;
  Tensor t;
  bool dead;
  std::thread aborter([&] { r.StartAbort(absl::UnavailableError("ps is gone")); });
  EXPECT_THAT(r.Recv("never", {}, &t, &dead),
              StatusIs(absl::StatusCode::kUnavailable, HasSubstr("ps is gone")));
  aborter.join();
  EXPECT_THAT(r.Send("after", t, false), StatusIs(absl::StatusCode::kUnavailable));

  LocalRendezvous r2;
  std::atomic<bool> cancelled{false};
  std::thread canceller([&] { cancelled = true; });
  EXPECT_THAT(r2.Recv(
                  "never", [&] { return cancelled.load(); }, &t, &dead),
              StatusIs(absl::StatusCode::kCancelled, HasSubstr("'never'")));
  canceller.join();
}

TEST(RendezvousTest, RecvAsyncIsCalledOnSendOrAbort) {
  LocalRendezvous r;
  ASSERT_OK(r.Send("first", Tensor::Scalar<float>(1), false));
  float got = 0;
  r.RecvAsync("first", [&](const absl::Status& s, const Tensor& t, bool dead) {
    EXPECT_OK(s);
    got = *t.data<float>();
  });
  EXPECT_EQ(got, 1.0f);  // already there: called at once
  r.RecvAsync("second", [&](const absl::Status& s, const Tensor& t, bool dead) {
    EXPECT_OK(s);
    got = *t.data<float>();
  });
  EXPECT_EQ(got, 1.0f);
  ASSERT_OK(r.Send("second", Tensor::Scalar<float>(2), false));
  EXPECT_EQ(got, 2.0f);  // called by the send
  absl::Status aborted;
  r.RecvAsync("never", [&](const absl::Status& s, const Tensor&, bool) { aborted = s; });
  r.StartAbort(absl::CancelledError("step ended"));
  EXPECT_THAT(aborted, StatusIs(absl::StatusCode::kCancelled, HasSubstr("step ended")));
}

}  // namespace
}  // namespace minigraph
