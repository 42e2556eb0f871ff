//===- OnnxFuzzer.cpp - libFuzzer harness: the ONNX import ---------------===//
//
/// \file
/// Feeds each input as a `.onnx` file to importONNXFile, the import `rlxc
/// model.onnx` runs (conversion/ONNXToRLX and the rlx dialect compiled here
/// with ASan, UBSan and coverage; libonnx and protobuf uninstrumented, from
/// Debian). The file lives alone in a private folder, so external data can
/// only name files that do not exist. Files that do not parse, fail ONNX's
/// checker or hold an op the importer does not map are expected errors. A
/// bug is a crash, a sanitizer report, an imported module the verifier
/// rejects, or one whose print does not parse again.
//
//===----------------------------------------------------------------------===//

#include "MlirFuzz.h"

#include "conversion/ONNXToRLX/ONNXToRLX.h"

#include "mlir/IR/Verifier.h"

#include <cstdio>
#include <cstdlib>
#include <string>
#include <unistd.h>

void rlxfuzz::MlirFuzzContext::extendRegistry(mlir::DialectRegistry &) {}

namespace {

/// A fresh folder (in /dev/shm when it exists: no disk I/O per input) with
/// the path of the model file in it.
const std::string &modelPath() {
  static const std::string path = [] {
    std::string folder = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
    folder += "/rlx-fuzz-onnx-XXXXXX";
    if (!mkdtemp(folder.data())) {
      std::perror("rlx-fuzz: mkdtemp");
      std::abort();
    }
    return folder + "/model.onnx";
  }();
  return path;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const std::string &path = modelPath();
  FILE *file = std::fopen(path.c_str(), "wb");
  if (!file || std::fwrite(data, 1, size, file) != size || std::fclose(file)) {
    std::perror("rlx-fuzz: writing the model");
    std::abort();
  }
  rlxfuzz::MlirFuzzContext &fuzz = rlxfuzz::MlirFuzzContext::get();
  std::vector<mlir::rlx::ONNXWeight> weights;
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::rlx::importONNXFile(path, &fuzz.context(), weights);
  if (!module)
    return 0;
  if (mlir::failed(mlir::verify(*module)))
    rlxfuzz::die("the ONNX import produced IR that does not verify", data,
                 size);
  fuzz.checkRoundTrip(*module);
  for (const mlir::rlx::ONNXWeight &weight : weights)
    if (static_cast<int64_t>(weight.bytes.size()) !=
        weight.type.getNumElements() *
            std::max<int64_t>(1, weight.type.getElementTypeBitWidth() / 8))
      rlxfuzz::die("a weight's bytes do not match its type", data, size);
  return 0;
}
