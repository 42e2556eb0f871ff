//===- Collectives.h - Collectives over a named axis of replicas -*- C++ -*-===//
///
/// \file
/// JAX's collectives for data-parallel code: inside a traced function, a
/// value is this replica's, and these combine it with every other
/// replica's along `axis` (the runtime's communicator: every process of
/// `mpirun`, or one). They differentiate (psum's adjoint is a psum of the
/// adjoints) and batch under vmap. all_gather and psum_scatter change a dim
/// by the axis size, which they take so that shapes stay static; the run
/// checks it against the communicator.
///
/// \code
///   Tensor g = pmean(local_grad, "replicas");
///   Tensor r = axis_index(s, "replicas"); // i32 scalar
/// \endcode
///
//===----------------------------------------------------------------------===//

#ifndef RLX_FRONTEND_COLLECTIVES_H
#define RLX_FRONTEND_COLLECTIVES_H

#include "rlx/frontend/Ops.h"

namespace rlx {

/// Elementwise sum over the replicas of `axis` (JAX's psum).
Tensor psum(const Tensor &x, const std::string &axis,
            SourceLoc loc = SourceLoc::current());
/// Elementwise mean (float tensors).
Tensor pmean(const Tensor &x, const std::string &axis,
             SourceLoc loc = SourceLoc::current());
Tensor pmax(const Tensor &x, const std::string &axis,
            SourceLoc loc = SourceLoc::current());
Tensor pmin(const Tensor &x, const std::string &axis,
            SourceLoc loc = SourceLoc::current());
/// Every replica's `x`, concatenated along `dim` in replica order (JAX's
/// all_gather with tiled=True); `axis_size` replicas.
Tensor all_gather(const Tensor &x, const std::string &axis, int64_t dim,
                  int64_t axis_size, SourceLoc loc = SourceLoc::current());
/// The sum over replicas, split along `dim` into `axis_size` blocks of
/// which replica r keeps block r (JAX's psum_scatter with tiled=True).
Tensor psum_scatter(const Tensor &x, const std::string &axis, int64_t dim,
                    int64_t axis_size, SourceLoc loc = SourceLoc::current());
/// Replica `root`'s `x` on every replica.
Tensor pbroadcast(const Tensor &x, const std::string &axis, int64_t root = 0,
                  SourceLoc loc = SourceLoc::current());
/// This replica's index along `axis`, an i32 scalar.
Tensor axis_index(Scope &s, const std::string &axis,
                  SourceLoc loc = SourceLoc::current());

} // namespace rlx

#endif // RLX_FRONTEND_COLLECTIVES_H
