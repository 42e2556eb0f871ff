//===- Manifest.h - An artifact's parsed manifest ---------------*- C++ -*-===//
//
/// \file
/// The manifest JSON of docs/abi.md, parsed and checked once at load time so
/// that calls never look at JSON again.
//
//===----------------------------------------------------------------------===//

#ifndef RLX_RUNTIME_SRC_MANIFEST_H
#define RLX_RUNTIME_SRC_MANIFEST_H

#include "rlx/abi.h"
#include "rlx/runtime.h"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace rlxrt {

/// An input, output or param: name, dtype, shape (-1 = dynamic).
struct TensorSpec {
  std::string name;
  rlx_dtype_t dtype = RLX_DTYPE_F32;
  std::vector<int64_t> shape;

  /// The C view; pointers borrowed from this spec.
  rlx_tensor_spec_t view() const {
    return {name.c_str(), dtype, shape.size(),
            shape.empty() ? nullptr : shape.data()};
  }
};

/// Input dims that must be equal at call time, and equal `size` when it is
/// not negative (docs/abi.md, `dim_constraints`).
struct DimConstraint {
  std::vector<std::pair<size_t, size_t>> dims; ///< (input, dim)
  int64_t size = -1;
};

/// The signature of an entry symbol (docs/abi.md).
using EntryFunction = rlx_artifact_entry_fn_t;

} // namespace rlxrt

struct rlx_entry_point_s {
  std::string name;
  std::string symbol;
  std::vector<rlxrt::TensorSpec> inputs;
  /// Every param, in the order the entry symbol takes them.
  std::vector<rlxrt::TensorSpec> params;
  /// The params a user binds: `params` less the prepared ones.
  std::vector<rlxrt::TensorSpec> publicParams;
  std::vector<rlxrt::TensorSpec> outputs;
  /// The entry point computing the prepared params (its outputs, by name)
  /// once per binding of weights; empty when there is none.
  std::string prepare;
  /// Whether this entry point is another's prepare entry point: run by the
  /// runtime, not listed to users.
  bool preparesParams = false;
  /// The entry point named by `prepare`, resolved once the manifest is the
  /// artifact's (its entry points never move after).
  const rlx_entry_point_s *preparedBy = nullptr;
  std::vector<rlxrt::DimConstraint> dimConstraints;
  uint64_t workspaceBytes = 0;
  uint64_t workspaceLowerBoundBytes = 0;
  /// Resolved by the artifact loader.
  rlxrt::EntryFunction function = nullptr;
};

namespace rlxrt {

struct Manifest {
  std::string target;
  std::string compiler;
  /// The CPU the code was compiled for; empty when the manifest predates
  /// them (nothing to check).
  std::string targetTriple;
  std::string cpu;
  /// "+name" per CPU feature the code needs (rlx/abi.h).
  std::vector<std::string> cpuFeatures;
  int64_t abiVersion = 0;
  std::vector<rlx_entry_point_s> entryPoints;
  /// The entry points users call (not prepare entry points), in order.
  std::vector<size_t> userEntryPoints; ///< indices into entryPoints
  /// The union over entry points, each name once.
  std::vector<TensorSpec> params;

  const rlx_entry_point_s *findEntryPoint(const std::string &name) const;
  const TensorSpec *findParam(const std::string &name) const;
  /// "'a', 'b'" for messages.
  std::string entryPointNames() const;
};

/// Parses and checks manifest `text` of the artifact at `path`. Throws
/// DATA_LOSS naming the path and the bad field, UNIMPLEMENTED for a dtype
/// this runtime does not know.
Manifest parseManifest(const std::string &path, const std::string &text);

} // namespace rlxrt

#endif // RLX_RUNTIME_SRC_MANIFEST_H
