//===- rlx/communicator.hpp - C++ wrapper of rlx/communicator.h -*- C++ -*-===//
///
/// \file
/// `rlx::runtime::Communicator`: RAII over rlx_communicator_t, throwing
/// RuntimeError like the rest of rlx/runtime.hpp.
///
//===----------------------------------------------------------------------===//

#ifndef RLX_COMMUNICATOR_HPP
#define RLX_COMMUNICATOR_HPP

#include "rlx/communicator.h"
#include "rlx/runtime.hpp"

namespace rlx::runtime {

/// The replicas of data-parallel calls (rlx/communicator.h).
class Communicator
    : public detail::Handle<rlx_communicator_t, rlx_communicator_retain,
                            rlx_communicator_release> {
public:
  using Handle::Handle;

  /// One replica: collectives are the identity.
  static Communicator single() {
    rlx_communicator_t *raw = nullptr;
    check(rlx_communicator_create_single(&raw));
    return Communicator(raw);
  }
  /// The MPI world; `timeout_seconds` < 0 takes the default (60 s or
  /// RLX_COLLECTIVE_TIMEOUT_S).
  static Communicator mpi(double timeout_seconds = -1) {
    rlx_communicator_options_t options;
    rlx_communicator_options_initialize(&options);
    if (timeout_seconds >= 0)
      options.timeout_seconds = timeout_seconds;
    rlx_communicator_t *raw = nullptr;
    check(rlx_communicator_create_mpi(&options, &raw));
    return Communicator(raw);
  }
  /// NCCL on this process's CUDA device; `bootstrap` (every replica's)
  /// carries NCCL's unique id.
  static Communicator nccl(const Communicator &bootstrap) {
    rlx_communicator_t *raw = nullptr;
    check(rlx_communicator_create_nccl(bootstrap.get(), &raw));
    return Communicator(raw);
  }
  Communicator share() const { return Communicator(retained()); }

  int rank() const { return rlx_communicator_rank(raw); }
  int size() const { return rlx_communicator_size(raw); }
  std::string description() const { return rlx_communicator_description(raw); }

  /// Overwrites `tensor` (host) with replica `root`'s.
  void broadcast(const HostTensor &tensor, int root,
                 const std::string &what) const {
    check(rlx_communicator_broadcast_tensor(raw, tensor.get(), root,
                                            what.c_str()));
  }
  /// Fails on every replica unless all passed the same bytes.
  void check_agreement(const std::string &bytes, const std::string &what) const {
    check(rlx_communicator_check_agreement(raw, bytes.data(), bytes.size(),
                                           what.c_str()));
  }
};

/// Runs `session`'s collectives on `communicator` (checks that every
/// replica runs the same artifact first).
inline void set_communicator(const Session &session,
                             const Communicator &communicator) {
  check(rlx_session_set_communicator(session.get(), communicator.get()));
}

} // namespace rlx::runtime

#endif // RLX_COMMUNICATOR_HPP
