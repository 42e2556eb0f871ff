//===- ONNXToRLX.cpp - Importing ONNX models into rlx ---------------------===//
///
/// \file
/// The importer's entry points: load and normalize with libonnx
/// (ModelLoader), build the module (GraphImporter), and write the weights
/// through the runtime's safetensors writer.
///
//===----------------------------------------------------------------------===//

#include "conversion/ONNXToRLX/ONNXToRLX.h"

#include "conversion/ONNXToRLX/GraphImporter.h"
#include "conversion/ONNXToRLX/ModelLoader.h"

#include "rlx/runtime.h"

#include "llvm/Support/Path.h"

namespace mlir::rlx {

OwningOpRef<ModuleOp> importONNXFile(llvm::StringRef path, MLIRContext *context,
                                     std::vector<ONNXWeight> &weights) {
  onnx::ModelProto model;
  if (std::string error =
          onnx_import::loadModel(path.str(), kONNXImportOpset, model);
      !error.empty()) {
    emitError(FileLineColLoc::get(context, path, 0, 0)) << error;
    return nullptr;
  }
  onnx_import::GraphImporter importer(context, path, weights);
  return importer.importModel(model);
}

std::string defaultWeightsPath(llvm::StringRef input, llvm::StringRef output) {
  llvm::SmallString<256> path(output.empty() || output == "-" ? input : output);
  llvm::sys::path::replace_extension(path, ".safetensors");
  return std::string(path);
}

bool isONNXPath(llvm::StringRef path) {
  return llvm::sys::path::extension(path).equals_insensitive(".onnx");
}

namespace {

rlx_dtype_t dtypeOf(Type type) {
  if (type.isF16())
    return RLX_DTYPE_F16;
  if (type.isBF16())
    return RLX_DTYPE_BF16;
  if (type.isF32())
    return RLX_DTYPE_F32;
  if (type.isF64())
    return RLX_DTYPE_F64;
  if (type.isInteger(1))
    return RLX_DTYPE_I1;
  if (type.isInteger(8))
    return RLX_DTYPE_I8;
  if (type.isInteger(32))
    return RLX_DTYPE_I32;
  return RLX_DTYPE_I64;
}

std::string statusText(rlx_status_t status) {
  std::string text = rlx_status_message(status);
  rlx_status_free(status);
  return text;
}

} // namespace

std::string writeWeights(llvm::StringRef path,
                         const std::vector<ONNXWeight> &weights) {
  rlx_tensor_list_t *list = nullptr;
  if (rlx_status_t status = rlx_tensor_list_create(&list))
    return statusText(status);
  std::string error;
  for (const ONNXWeight &weight : weights) {
    rlx_tensor_t *tensor = nullptr;
    ArrayRef<int64_t> dims = weight.type.getShape();
    // Borrowed: the list and the file are done before `weights` goes.
    rlx_status_t status = rlx_tensor_wrap(
        dtypeOf(weight.type.getElementType()), dims.size(), dims.data(),
        const_cast<char *>(weight.bytes.data()), nullptr, nullptr, &tensor);
    if (!status)
      status = rlx_tensor_list_append(list, weight.name.c_str(), tensor);
    rlx_tensor_release(tensor);
    if (status) {
      error = "weight '" + weight.name + "': " + statusText(status);
      break;
    }
  }
  if (error.empty())
    if (rlx_status_t status = rlx_safetensors_write(path.str().c_str(), list))
      error = statusText(status);
  rlx_tensor_list_free(list);
  return error;
}

} // namespace mlir::rlx
