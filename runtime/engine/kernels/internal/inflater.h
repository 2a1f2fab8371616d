// The decompressed bytes of a ZLIB or GZIP file, for the kernels that read
// compressed files (tf.data's file datasets, the TFRecord and fixed-length
// readers).
//
//   MG_ASSIGN_OR_RETURN(std::unique_ptr<Inflater> in,
//                       OpenInflater(env, "/data/a.gz", Compression::kGzip, 256 << 10));
//   MG_ASSIGN_OR_RETURN(size_t n, in->Read(sizeof(buf), buf));
//
// Thread-compatible: one reader per Inflater.

#ifndef MINIGRAPH_RUNTIME_ENGINE_KERNELS_INTERNAL_INFLATER_H_
#define MINIGRAPH_RUNTIME_ENGINE_KERNELS_INTERNAL_INFLATER_H_

#include <cstring>
#include <memory>
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "core/env.h"
#include "core/status_macros.h"
#include "zlib.h"

namespace minigraph {
namespace kernels_internal {

enum class Compression { kNone, kZlib, kGzip };

// The decompressed bytes of a ZLIB or GZIP file, inflated by zlib a chunk
// at a time (a file of several gzip members reads as their concatenation,
// as zcat reads it). Errors say what is wrong with the data; callers add
// the dataset and the file.
class Inflater {
 public:
  Inflater(std::unique_ptr<SequentialFile> file, Compression compression, size_t chunk)
      : file_(std::move(file)), gzip_(compression == Compression::kGzip), chunk_(chunk) {}
  ~Inflater() {
    if (initialized_) inflateEnd(&z_);
  }
  Inflater(const Inflater&) = delete;
  Inflater& operator=(const Inflater&) = delete;

  absl::Status Init() {
    // 16 + MAX_WBITS: a gzip header and trailer; MAX_WBITS: a zlib one.
    if (inflateInit2(&z_, gzip_ ? 16 + MAX_WBITS : MAX_WBITS) != Z_OK) {
      return absl::ResourceExhaustedError("zlib could not start inflating");
    }
    initialized_ = true;
    return absl::OkStatus();
  }

  // Up to `n` bytes into `dst`; fewer only at the end of the data.
  absl::StatusOr<size_t> Read(size_t n, char* dst) {
    size_t done = 0;
    while (done < n) {
      MG_RETURN_IF_ERROR(Fill());
      if (out_pos_ == out_.size()) break;  // the end
      const size_t take = std::min(n - done, out_.size() - out_pos_);
      std::memcpy(dst + done, out_.data() + out_pos_, take);
      out_pos_ += take;
      done += take;
    }
    return done;
  }

  // True when no byte is left.
  absl::StatusOr<bool> AtEnd() {
    MG_RETURN_IF_ERROR(Fill());
    return out_pos_ == out_.size();
  }

 private:
  // Makes out_ hold unread bytes, unless the data has ended.
  absl::Status Fill() {
    while (out_pos_ == out_.size()) {
      if (z_.avail_in == 0 && !file_eof_) {
        in_.resize(chunk_);
        MG_ASSIGN_OR_RETURN(absl::string_view got, file_->Read(in_.size(), in_.data()));
        if (got.empty()) {
          file_eof_ = true;
        } else {
          if (got.data() != in_.data()) std::memmove(in_.data(), got.data(), got.size());
          z_.next_in = reinterpret_cast<Bytef*>(in_.data());
          z_.avail_in = static_cast<uInt>(got.size());
        }
      }
      if (z_.avail_in == 0 && file_eof_) {
        if (member_started_) {
          return absl::DataLossError(absl::StrCat("the compressed data ends early, after ",
                                                  z_.total_in, " bytes of a member"));
        }
        out_.clear();
        out_pos_ = 0;
        return absl::OkStatus();
      }
      if (stream_end_) {
        // Another gzip member (or zlib stream) follows.
        inflateReset(&z_);
        stream_end_ = false;
      }
      member_started_ = true;
      out_.resize(chunk_);
      z_.next_out = reinterpret_cast<Bytef*>(out_.data());
      z_.avail_out = static_cast<uInt>(out_.size());
      const int ret = inflate(&z_, Z_NO_FLUSH);
      out_.resize(out_.size() - z_.avail_out);
      out_pos_ = 0;
      if (ret == Z_STREAM_END) {
        stream_end_ = true;
        member_started_ = false;
      } else if (ret != Z_OK && ret != Z_BUF_ERROR) {
        return absl::DataLossError(absl::StrCat(
            "the compressed data is corrupt (zlib: ", z_.msg != nullptr ? z_.msg : zError(ret),
            ") after ", z_.total_in, " bytes of a member"));
      }
    }
    return absl::OkStatus();
  }

  const std::unique_ptr<SequentialFile> file_;
  const bool gzip_;
  const size_t chunk_;
  z_stream z_{};
  bool initialized_ = false;
  std::string in_, out_;
  size_t out_pos_ = 0;
  bool file_eof_ = false;
  bool stream_end_ = false;
  bool member_started_ = false;
};

// `path` as a stream of its decompressed bytes.
inline absl::StatusOr<std::unique_ptr<Inflater>> OpenInflater(Env* env, const std::string& path,
                                                       Compression compression, size_t chunk) {
  MG_ASSIGN_OR_RETURN(std::unique_ptr<SequentialFile> file, env->NewSequentialFile(path));
  auto inflater = std::make_unique<Inflater>(std::move(file), compression, chunk);
  MG_RETURN_IF_ERROR(inflater->Init());
  return inflater;
}

}  // namespace kernels_internal
}  // namespace minigraph

#endif  // MINIGRAPH_RUNTIME_ENGINE_KERNELS_INTERNAL_INFLATER_H_
