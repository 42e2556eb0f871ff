//===- ONNXToRLX.h - Importing ONNX models into rlx -------------*- C++ -*-===//
///
/// \file
/// The ONNX importer's interface: `importONNXFile` loads a `.onnx` file
/// (external data included), converts it to one opset and builds a module
/// with one public function `@main` in the rlx dialect. The weights
/// (initializers) are not embedded: each becomes an `rlx.param` named by its
/// ONNX name and is returned beside the module, to be written as safetensors
/// with `writeWeights`. The interface names no ONNX type, so users need
/// neither ONNX's headers nor its defines.
///
//===----------------------------------------------------------------------===//

#ifndef RLX_CONVERSION_ONNXTORLX_ONNXTORLX_H
#define RLX_CONVERSION_ONNXTORLX_ONNXTORLX_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <string>
#include <vector>

namespace mlir::rlx {

/// The opset every model is converted to before import (ONNX 1.12's
/// newest): one set of op semantics to map instead of one per opset.
constexpr int64_t kONNXImportOpset = 17;

/// An initializer that became an `rlx.param`: its name, type and elements
/// (row-major, little-endian, one byte per i1).
struct ONNXWeight {
  std::string name;
  RankedTensorType type;
  std::vector<char> bytes;
};

/// Imports the ONNX model at `path` into a new module of `context` (which
/// must have the rlx and func dialects loaded) with one function `@main`:
/// the graph's inputs are its arguments and its outputs its results, both
/// named by `rlx.name` attributes holding their ONNX names; `dim_param` and
/// unknown dims are dynamic. Initializers the graph reads become
/// `rlx.param`s, appended to `weights`. On failure (unreadable or invalid
/// file, an op or attribute the importer does not map) the reason has been
/// reported through the context's diagnostics, naming the file and the
/// node (index, name, op type), and null is returned.
OwningOpRef<ModuleOp> importONNXFile(llvm::StringRef path, MLIRContext *context,
                                     std::vector<ONNXWeight> &weights);

/// Writes `weights` to `path` as safetensors (the runtime's writer, so
/// `rlx-run --weights` and `Session::bind_safetensors` read it back).
/// Returns an empty string, or the reason it could not.
std::string writeWeights(llvm::StringRef path,
                         const std::vector<ONNXWeight> &weights);

/// Where the weights of a model imported from `input` go when the tool
/// writes `output` and no path is given: `output` with the extension
/// `.safetensors` (model.so -> model.safetensors), or beside `input` when
/// `output` is stdout ("-").
std::string defaultWeightsPath(llvm::StringRef input, llvm::StringRef output);

/// True when `path` names a `.onnx` file (by its extension, any case).
bool isONNXPath(llvm::StringRef path);

} // namespace mlir::rlx

#endif // RLX_CONVERSION_ONNXTORLX_ONNXTORLX_H
