//===- ModelLoader.h - Reading and normalizing ONNX models ------*- C++ -*-===//
///
/// \file
/// Everything the importer does with libonnx before building IR: parsing the
/// protobuf, inlining external data, ONNX's checker and the version
/// converter (one opset to map, whatever the model was exported with).
/// ONNX's shape inference is not run: the importer does not need it, and
/// libonnx 1.12's crashes on malformed conv/pool attributes (test/fuzz found
/// SIGFPE and SIGSEGV). libonnx reports errors by throwing; this file
/// catches them and returns messages, so the rest of the compiler stays
/// exception-free.
///
//===----------------------------------------------------------------------===//

#ifndef RLX_CONVERSION_ONNXTORLX_MODELLOADER_H
#define RLX_CONVERSION_ONNXTORLX_MODELLOADER_H

#include "onnx/onnx_pb.h"

#include <cstdint>
#include <string>

namespace mlir::rlx::onnx_import {

/// Reads the model at `path` into `model`: parsed, its external data read
/// into `raw_data` (paths relative to the model's folder, never outside it),
/// checked by ONNX's checker and converted to `opset` of the default domain.
/// Returns an empty string, or the reason it failed, naming
/// the file.
std::string loadModel(const std::string &path, int64_t opset,
                      onnx::ModelProto &model);

/// The opset of the default ONNX domain that `model` imports, or -1.
int64_t defaultOpset(const onnx::ModelProto &model);

} // namespace mlir::rlx::onnx_import

#endif // RLX_CONVERSION_ONNXTORLX_MODELLOADER_H
