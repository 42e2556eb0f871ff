//===- Calibration.cpp - Activation ranges for int8 quantization ----------===//

#include "codegen/Calibration/Calibration.h"

#include "codegen/Compiler.h"
#include "dialects/RLX/IR/RLXDialect.h"
#include "dialects/RLX/Transforms/Quantization.h"

#include "rlx/runtime.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/ADT/BitVector.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <algorithm>
#include <cmath>
#include <memory>

using namespace mlir;
using namespace mlir::rlx;

namespace {

/// Owning wrappers of the runtime's C handles (its C++ wrapper throws, and
/// this library is built without exceptions, as MLIR is).
struct ReleaseTensor {
  void operator()(rlx_tensor_t *t) const { rlx_tensor_release(t); }
};
struct ReleaseArtifact {
  void operator()(rlx_artifact_t *a) const { rlx_artifact_release(a); }
};
struct ReleaseSession {
  void operator()(rlx_session_t *s) const { rlx_session_release(s); }
};
struct FreeList {
  void operator()(rlx_tensor_list_t *l) const { rlx_tensor_list_free(l); }
};
using Tensor = std::unique_ptr<rlx_tensor_t, ReleaseTensor>;

/// The runtime's error as a message, freeing it; "" for success.
std::string takeError(rlx_status_t status) {
  if (!status)
    return "";
  std::string message = rlx_status_message(status);
  rlx_status_free(status);
  return message;
}

/// The ops of `fn` that int8 quantization rewrites, in walk order (the same
/// in a clone).
SmallVector<Operation *> quantizedOps(func::FuncOp fn) {
  SmallVector<Operation *> ops;
  fn.walk([&](Operation *op) {
    if (quantizedActivation(op))
      ops.push_back(op);
  });
  return ops;
}

/// The function to calibrate: the one named, or the only public function
/// with a matmul or conv to quantize.
FailureOr<func::FuncOp> findFunction(ModuleOp module, StringRef name) {
  if (!name.empty()) {
    auto fn = module.lookupSymbol<func::FuncOp>(name);
    if (!fn || fn.isPrivate() || fn.isExternal())
      return module.emitError() << "calibration: no public function '" << name
                                << "' in the module";
    return fn;
  }
  SmallVector<func::FuncOp> candidates;
  for (auto fn : module.getOps<func::FuncOp>())
    if (fn.isPublic() && !fn.isExternal() && !quantizedOps(fn).empty())
      candidates.push_back(fn);
  if (candidates.size() == 1)
    return candidates.front();
  if (candidates.empty())
    return module.emitError()
           << "calibration: no public function has a matmul or conv of an "
              "activation by a weight to quantize";
  InFlightDiagnostic diag = module.emitError()
                            << "calibration: several functions have "
                               "matmuls or convs to quantize (";
  llvm::interleaveComma(candidates, diag,
                        [&](func::FuncOp fn) { diag << fn.getSymName(); });
  return diag << "); name one with --calibrate-fn";
}

/// Turns `fn` (in a copy of the module) into the measuring function: its
/// results become the largest |activation| of each of `ops` (`whole`: the
/// |activation| itself, every element, for a histogram), the inputs no
/// measurement depends on are dropped, and the module's other public
/// functions become private, to be erased when nothing calls them.
LogicalResult makeMeasuringFunction(ModuleOp module, func::FuncOp fn,
                                    ArrayRef<Operation *> ops, bool whole) {
  OpBuilder b(module.getContext());
  SmallVector<Value> activations = llvm::map_to_vector(
      ops, [](Operation *op) { return quantizedActivation(op); });
  SmallVector<Value> maxima;
  for (auto [op, x] : llvm::zip(ops, activations)) {
    b.setInsertionPointAfter(op);
    Value magnitude = AbsOp::create(b, op->getLoc(), x);
    if (whole) {
      maxima.push_back(magnitude);
      continue;
    }
    auto rank = cast<RankedTensorType>(x.getType()).getRank();
    SmallVector<int64_t> all = llvm::to_vector(llvm::seq<int64_t>(0, rank));
    maxima.push_back(MaxOp::create(b, op->getLoc(), magnitude,
                                   b.getDenseI64ArrayAttr(all),
                                   b.getBoolAttr(false)));
  }
  auto ret = cast<func::ReturnOp>(fn.getBody().back().getTerminator());
  b.setInsertionPoint(ret);
  func::ReturnOp::create(b, ret.getLoc(), maxima);
  ret.erase();
  SmallVector<Type> types = llvm::to_vector(ValueRange(maxima).getTypes());
  fn.setFunctionType(b.getFunctionType(fn.getArgumentTypes(), types));
  SmallVector<DictionaryAttr> names;
  for (size_t i = 0; i < maxima.size(); ++i)
    names.push_back(b.getDictionaryAttr(b.getNamedAttr(
        "rlx.name", b.getStringAttr("absmax." + std::to_string(i)))));
  fn.setAllResultAttrs(names);
  for (auto other : module.getOps<func::FuncOp>())
    if (other != fn && other.isPublic())
      other.setPrivate();

  PassManager pm(module->getName());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createSymbolDCEPass());
  if (failed(pm.run(module)))
    return failure();
  llvm::BitVector unused(fn.getNumArguments());
  for (BlockArgument arg : fn.getArguments())
    if (arg.use_empty())
      unused.set(arg.getArgNumber());
  return fn.eraseArguments(unused);
}

/// Compiles the measuring module for this machine's CPU into `path`.
LogicalResult compileForHost(ModuleOp module, StringRef path) {
  CompileOptions options;
  if (failed(runPhases(module, Phase::Codegen, options)))
    return failure();
  return emitArtifact(module, options, EmitKind::SharedLibrary, path);
}

/// Takes what one call of the measuring function gave: the pass over the
/// batches, the batch's files (for errors) and the call's outputs.
using BatchResults = function_ref<LogicalResult(
    int pass, StringRef batchName, rlx_tensor_list_t *outputs)>;

/// Calls `visit(value)` on every element of the host tensor `t`; an error
/// message when an element cannot be read.
std::string forEachValue(const rlx_tensor_t *t,
                         function_ref<void(double)> visit) {
  size_t count = rlx_tensor_element_count(t);
  if (rlx_tensor_dtype(t) == RLX_DTYPE_F32) {
    const float *data = static_cast<const float *>(rlx_tensor_data(t));
    for (size_t i = 0; i < count; ++i)
      visit(data[i]);
    return "";
  }
  for (size_t i = 0; i < count; ++i) {
    double value = 0;
    if (std::string error = takeError(rlx_tensor_get_f64(t, i, &value));
        !error.empty())
      return error;
    visit(value);
  }
  return "";
}

/// Loads the measuring artifact, binds the weights and calls `entry` on
/// every batch, `passes` times over the batches, handing each call's
/// outputs to `results(pass, ...)`.
LogicalResult runBatches(ModuleOp module, StringRef artifactPath,
                         StringRef entry, const CalibrationOptions &options,
                         int passes, BatchResults results) {
  auto fail = [&](const Twine &message) {
    return module.emitError() << "calibration: " << message;
  };
  rlx_artifact_t *rawArtifact = nullptr;
  if (std::string error = takeError(
          rlx_artifact_load(artifactPath.str().c_str(), &rawArtifact));
      !error.empty())
    return fail("cannot load the measuring artifact: " + error);
  std::unique_ptr<rlx_artifact_t, ReleaseArtifact> artifact(rawArtifact);
  rlx_session_t *rawSession = nullptr;
  if (std::string error =
          takeError(rlx_session_create(artifact.get(), &rawSession));
      !error.empty())
    return fail(error);
  std::unique_ptr<rlx_session_t, ReleaseSession> session(rawSession);
  if (rlx_artifact_param_count(artifact.get()) > 0) {
    if (options.weights.empty())
      return fail("the model reads weights: pass the safetensors file that "
                  "binds them (--weights FILE)");
    rlx_bind_options_t bind;
    rlx_bind_options_initialize(&bind);
    bind.allow_unused = 1;
    if (std::string error = takeError(rlx_session_bind_safetensors(
            session.get(), options.weights.c_str(), &bind));
        !error.empty())
      return fail(error);
  }

  const rlx_entry_point_t *ep = nullptr;
  if (std::string error = takeError(rlx_artifact_find_entry_point(
          artifact.get(), entry.str().c_str(), &ep));
      !error.empty())
    return fail(error);
  size_t inputCount = rlx_entry_point_input_count(ep);
  // The files of each input, in order; unnamed files go to the only input.
  SmallVector<std::string> inputNames;
  llvm::StringMap<SmallVector<std::string>> files;
  for (size_t i = 0; i < inputCount; ++i) {
    rlx_tensor_spec_t spec;
    if (std::string error = takeError(rlx_entry_point_input(ep, i, &spec));
        !error.empty())
      return fail(error);
    inputNames.push_back(spec.name);
  }
  std::string nameList = llvm::join(inputNames, ", ");
  for (const CalibrationInput &input : options.inputs) {
    if (input.name.empty()) {
      if (inputCount != 1)
        return fail("'" + input.path + "' names no input, but the quantized ops "
                    "depend on " + std::to_string(inputCount) +
                    " inputs (" + nameList + "): pass NAME=FILE");
      files[inputNames.front()].push_back(input.path);
      continue;
    }
    if (!llvm::is_contained(inputNames, input.name))
      return fail("'" + input.name + "' is not an input that the quantized "
                  "ops depend on (they depend on: " +
                  (nameList.empty() ? "none" : nameList) + ")");
    files[input.name].push_back(input.path);
  }
  size_t batches = inputCount ? files[inputNames.front()].size() : 1;
  for (StringRef name : inputNames)
    if (files[name].size() != batches || batches == 0)
      return fail("input '" + name + "' has " +
                  std::to_string(files[name].size()) +
                  " calibration files, and every input needs as many (" +
                  std::to_string(std::max<size_t>(batches, 1)) + ")");

  for (int pass = 0; pass < passes; ++pass) {
    for (size_t batch = 0; batch < batches; ++batch) {
      std::vector<Tensor> owned;
      std::vector<rlx_tensor_t *> inputs;
      std::string batchName = "batch " + std::to_string(batch + 1) + " (";
      for (StringRef name : inputNames)
        batchName += (batchName.back() == '(' ? "" : ", ") + name.str() + "=" +
                     files[name][batch];
      batchName += ")";
      for (StringRef name : inputNames) {
        const std::string &path = files[name][batch];
        rlx_tensor_t *raw = nullptr;
        if (std::string error = takeError(rlx_npy_read(path.c_str(), &raw));
            !error.empty())
          return fail(error);
        owned.emplace_back(raw);
        inputs.push_back(raw);
      }
      rlx_tensor_list_t *rawOutputs = nullptr;
      if (std::string error = takeError(
              rlx_session_call(session.get(), entry.str().c_str(),
                               inputs.data(), inputs.size(), &rawOutputs));
          !error.empty())
        return fail(batchName + ": " + error);
      std::unique_ptr<rlx_tensor_list_t, FreeList> outputs(rawOutputs);
      if (failed(results(pass, batchName, outputs.get())))
        return failure();
    }
  }
  return success();
}

/// The largest value of each output over the calls, into `maxima` (one
/// entry per output, grown on the first call); an error for one that is
/// not finite.
LogicalResult takeMaxima(ModuleOp module, StringRef batchName,
                         rlx_tensor_list_t *outputs,
                         SmallVectorImpl<double> &maxima) {
  size_t count = rlx_tensor_list_size(outputs);
  if (maxima.size() < count)
    maxima.resize(count, 0.0);
  for (size_t i = 0; i < count; ++i) {
    bool finite = true;
    double &max = maxima[i];
    if (std::string error =
            forEachValue(rlx_tensor_list_get(outputs, i), [&](double v) {
              finite &= std::isfinite(v);
              max = std::max(max, v);
            });
        !error.empty())
      return module.emitError() << "calibration: " << error;
    if (!finite)
      return module.emitError()
             << "calibration: " << batchName
             << " gives a quantized op an activation that is not finite";
  }
  return success();
}

/// The upper edge of the first of `counts`' bins (of `max / bins` each)
/// where the cumulative count reaches `percentile`% of all values.
double percentileOf(ArrayRef<uint64_t> counts, double max,
                    double percentile) {
  uint64_t total = 0;
  for (uint64_t c : counts)
    total += c;
  double wanted = percentile / 100 * double(total);
  uint64_t cumulative = 0;
  for (size_t i = 0; i < counts.size(); ++i) {
    cumulative += counts[i];
    if (double(cumulative) >= wanted)
      return max * double(i + 1) / double(counts.size());
  }
  return max;
}

} // namespace

LogicalResult mlir::rlx::calibrateActivations(ModuleOp module,
                                              const CalibrationOptions &options) {
  FailureOr<func::FuncOp> fn = findFunction(module, options.function);
  if (failed(fn))
    return failure();
  SmallVector<Operation *> ops = quantizedOps(*fn);
  if (ops.empty())
    return fn->emitError() << "calibration: function '" << fn->getSymName()
                           << "' has no matmul or conv of an activation by a "
                              "weight to quantize";
  for (const CalibrationInput &input : options.inputs)
    if (!llvm::sys::fs::exists(input.path))
      return module.emitError()
             << "calibration: cannot read '" << input.path
             << "': no such file";

  OwningOpRef<ModuleOp> copy = module.clone();
  auto measuring = copy->lookupSymbol<func::FuncOp>(fn->getSymName());
  SmallVector<Operation *> copies = quantizedOps(measuring);
  if (copies.size() != ops.size())
    return module.emitError("calibration: the module's copy differs");
  bool percentile = options.method == CalibrationMethod::Percentile;
  if (percentile && !(options.percentile > 0 && options.percentile <= 100))
    return module.emitError() << "calibration: the percentile must be in "
                                 "(0, 100], not "
                              << options.percentile;
  if (failed(makeMeasuringFunction(*copy, measuring, copies, percentile)))
    return failure();

  SmallString<128> directory;
  if (std::error_code ec =
          llvm::sys::fs::createUniqueDirectory("rlx-calibrate", directory))
    return module.emitError() << "calibration: cannot make a temporary "
                                 "folder: " << ec.message();
  llvm::scope_exit cleanup(
      [&] { llvm::sys::fs::remove_directories(directory); });
  SmallString<128> artifactPath = directory;
  llvm::sys::path::append(artifactPath, "measure.so");
  if (failed(compileForHost(*copy, artifactPath)))
    return failure();

  // Max: one pass, each output the maximum of one activation. Percentile:
  // each output a whole |activation|; the first pass finds its maximum, the
  // second fills a histogram over [0, maximum].
  SmallVector<double> maxima;
  SmallVector<SmallVector<uint64_t>> histograms;
  auto results = [&](int pass, StringRef batchName,
                     rlx_tensor_list_t *outputs) -> LogicalResult {
    if (pass == 0)
      return takeMaxima(module, batchName, outputs, maxima);
    histograms.resize(maxima.size(),
                      SmallVector<uint64_t>(kPercentileBins, 0));
    for (size_t i = 0; i < maxima.size(); ++i) {
      SmallVector<uint64_t> &counts = histograms[i];
      double max = maxima[i];
      if (std::string error =
              forEachValue(rlx_tensor_list_get(outputs, i), [&](double v) {
                int64_t bin = max > 0 ? int64_t(v / max * kPercentileBins)
                                      : 0;
                ++counts[std::clamp<int64_t>(bin, 0, kPercentileBins - 1)];
              });
          !error.empty())
        return module.emitError() << "calibration: " << error;
    }
    return success();
  };
  if (failed(runBatches(module, artifactPath, fn->getSymName(), options,
                        percentile ? 2 : 1, results)))
    return failure();
  Builder b(module.getContext());
  for (auto [i, op] : llvm::enumerate(ops)) {
    double range = maxima[i];
    if (percentile)
      range = percentileOf(histograms[i], range, options.percentile);
    op->setAttr(kActivationAbsMaxAttr, b.getF64FloatAttr(range));
  }
  return success();
}
