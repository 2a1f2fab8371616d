// How //session:local_session plugs the in-process session into NewSession
// for targets "" and "local://NAME" without the Session interface depending
// on it. Only session/ uses this.

#ifndef MINIGRAPH_SESSION_INTERNAL_IN_PROCESS_FACTORY_H_
#define MINIGRAPH_SESSION_INTERNAL_IN_PROCESS_FACTORY_H_

#include "session/session.h"

namespace minigraph {
namespace session_internal {

// Sets the factory NewSession uses for "" and "local://" targets. Called
// once, by local_session.cc's static registrar. Thread-safe.
void SetInProcessSessionFactory(SessionFactory factory);

}  // namespace session_internal
}  // namespace minigraph

#endif  // MINIGRAPH_SESSION_INTERNAL_IN_PROCESS_FACTORY_H_
