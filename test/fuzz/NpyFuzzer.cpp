//===- NpyFuzzer.cpp - libFuzzer harness: rlx_npy_read -------------------===//
//
/// \file
/// Feeds each input, as a whole file, to rlx_npy_read (runtime/src/Npy.cpp:
/// the magic, the version, the Python-literal header dict, the shape and the
/// data, compiled here with ASan, UBSan and coverage). An error status is
/// the expected answer to a bad file. A bug is a crash, a sanitizer report,
/// an INTERNAL status, or a returned tensor whose element count disagrees
/// with its byte size or whose bytes cannot all be read.
//
//===----------------------------------------------------------------------===//

#include "FuzzFile.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static rlxfuzz::FuzzFile file;
  file.write(data, size);
  rlx_tensor_t *tensor = nullptr;
  rlx_status_t status = rlx_npy_read(file.path.c_str(), &tensor);
  if (status) {
    rlxfuzz::checkStatus(status);
    return 0;
  }
  volatile unsigned sink = rlxfuzz::touch(tensor);
  (void)sink;
  if (rlx_tensor_element_count(tensor) * rlx_dtype_size(rlx_tensor_dtype(tensor)) !=
      rlx_tensor_byte_size(tensor))
    __builtin_trap();
  rlx_tensor_release(tensor);
  return 0;
}
