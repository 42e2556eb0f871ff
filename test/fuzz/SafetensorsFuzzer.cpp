//===- SafetensorsFuzzer.cpp - libFuzzer harness: rlx_safetensors_read ---===//
//
/// \file
/// Feeds each input, as a whole file, to rlx_safetensors_read (the reader
/// librlxrt binds weights with: runtime/src/Safetensors.cpp, compiled here
/// with ASan, UBSan and coverage). A DATA_LOSS or other error status is the
/// expected answer to a bad file. A bug is a crash, a sanitizer report
/// (reading outside the mapping, overflow in offset arithmetic), an
/// INTERNAL status (an exception the reader did not mean to throw), or a
/// returned tensor whose bytes cannot all be read.
//
//===----------------------------------------------------------------------===//

#include "FuzzFile.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static rlxfuzz::FuzzFile file;
  file.write(data, size);
  rlx_tensor_list_t *list = nullptr;
  rlx_status_t status = rlx_safetensors_read(file.path.c_str(), &list);
  if (status) {
    rlxfuzz::checkStatus(status);
    return 0;
  }
  volatile unsigned sink = 0;
  for (size_t i = 0, e = rlx_tensor_list_size(list); i < e; ++i) {
    rlx_tensor_t *tensor = rlx_tensor_list_get(list, i);
    sink += rlxfuzz::touch(tensor);
    size_t found = 0;
    rlxfuzz::checkStatus(
        rlx_tensor_list_find(list, rlx_tensor_list_name(list, i), &found));
    if (found != i)
      __builtin_trap(); // names must be unique
  }
  rlx_tensor_list_free(list);
  return 0;
}
