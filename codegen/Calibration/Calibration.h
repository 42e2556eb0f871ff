//===- Calibration.h - Activation ranges for int8 quantization --*- C++ -*-===//
///
/// \file
/// Post-training quantization with static activation scales needs the
/// range of each quantized matmul or conv's activation on representative
/// data. The
/// compiler measures it the way ONNX Runtime's and PyTorch's calibrators
/// do, by running the model: a copy of the function whose outputs are the
/// largest |activation| of each such op is compiled for this machine's
/// CPU, loaded through the runtime, bound to the weights and called on
/// each calibration batch. The maxima land on the original ops as
/// `rlx.activation_absmax`, which rlx-quantize-int8 turns into constant
/// scales.
///
/// This library links both the compiler and the runtime (as the frontend's
/// jit does); the runtime itself still knows nothing of MLIR.
///
//===----------------------------------------------------------------------===//

#ifndef RLX_CODEGEN_CALIBRATION_CALIBRATION_H
#define RLX_CODEGEN_CALIBRATION_CALIBRATION_H

#include "mlir/IR/BuiltinOps.h"

#include <string>
#include <vector>

namespace mlir::rlx {

/// One calibration file for an input of the calibrated function.
struct CalibrationInput {
  /// The input's name (its `rlx.name`); empty when the part of the
  /// function that calibration runs reads a single input.
  std::string name;
  /// A .npy file holding a batch of that input.
  std::string path;
};

/// How an activation's range follows from the values calibration sees.
enum class CalibrationMethod {
  /// The largest |activation| of all batches.
  Max,
  /// The `percentile`-th percentile of |activation| over every element of
  /// every batch (ONNX Runtime's and TensorRT's percentile calibrators):
  /// a histogram of kPercentileBins bins over [0, max] from a second pass
  /// over the batches, and the upper edge of the first bin where the
  /// cumulative count reaches that share. Rare outliers no longer stretch
  /// the scale of every other value; they saturate at +-127 instead.
  Percentile,
};

/// Bins of the percentile calibrator's histogram (ONNX Runtime's default).
inline constexpr int64_t kPercentileBins = 2048;

struct CalibrationOptions {
  /// The public function to run; empty: the only public function holding a
  /// matmul or conv that int8 quantization rewrites.
  std::string function;
  /// The batches: the k-th file given for each input forms batch k.
  std::vector<CalibrationInput> inputs;
  /// The safetensors file binding the function's params; empty when it
  /// reads none.
  std::string weights;
  CalibrationMethod method = CalibrationMethod::Max;
  /// For CalibrationMethod::Percentile, in (0, 100] (ONNX Runtime's
  /// default).
  double percentile = 99.999;
};

/// Runs `module` (compiled through the simplify phase, so that its ops are
/// the ones rlx-quantize-int8 will see) on the calibration batches and
/// records on each matmul and conv of the function that it quantizes the
/// range of its activation over all batches (options.method). Only the
/// inputs that those activations depend on are read.
/// Errors are reported on the module's context, naming the file, input or
/// function at fault.
mlir::LogicalResult calibrateActivations(mlir::ModuleOp module,
                                         const CalibrationOptions &options);

} // namespace mlir::rlx

#endif // RLX_CODEGEN_CALIBRATION_CALIBRATION_H
