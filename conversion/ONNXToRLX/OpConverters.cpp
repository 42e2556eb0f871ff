//===- OpConverters.cpp - The ONNX op table -------------------------------===//
///
/// \file
/// The op table of the ONNX importer: one converter per ONNX op type of
/// opset kONNXImportOpset (the one every model is converted to), from each
/// op family's file. A converter reads its node through NodeContext and
/// builds rlx ops with the checked builders, so operands an rlx op rejects
/// are an error naming the node.
///
//===----------------------------------------------------------------------===//

#include "conversion/ONNXToRLX/ConverterUtils.h"

namespace mlir::rlx::onnx_import {

const llvm::StringMap<OpConverter> &opConverters() {
  static const llvm::StringMap<OpConverter> table = [] {
    llvm::StringMap<OpConverter> t;
    addElementwiseOps(t);
    addShapeOps(t);
    addNNOps(t);
    addWindowOps(t);
    addRecurrentOps(t);
    addIndexedOps(t);
    addSamplingOps(t);
    addControlFlowOps(t);
    addComposedOps(t);
    addQuantOps(t);
    return t;
  }();
  return table;
}

} // namespace mlir::rlx::onnx_import
