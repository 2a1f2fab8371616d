// What sessions on one target share: variables and other resources. A
// session on target "" has its own; sessions on "local://NAME" share one.

#ifndef MINIGRAPH_SESSION_SESSION_STATE_H_
#define MINIGRAPH_SESSION_SESSION_STATE_H_

#include <string>

#include "runtime/engine/resource_mgr.h"

namespace minigraph {

// Safe for concurrent use.
class SessionState {
 public:
  explicit SessionState(std::string name) : name_(std::move(name)) {}
  const std::string& name() const { return name_; }
  ResourceMgr* resource_mgr() { return &resource_mgr_; }

 private:
  const std::string name_;
  ResourceMgr resource_mgr_;
};

}  // namespace minigraph

#endif  // MINIGRAPH_SESSION_SESSION_STATE_H_
