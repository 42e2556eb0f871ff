//===- DriverLibrary.h - Loading a GPU driver with dlopen -------*- C++ -*-===//
//
/// \file
/// GPU drivers are found at run time, never linked, so that librlxrt loads
/// everywhere. A driver library, once found, stays loaded for the life of
/// the process: drivers (libcuda in particular) do not survive being
/// unloaded and loaded again.
//
//===----------------------------------------------------------------------===//

#ifndef RLX_RUNTIME_SRC_DRIVERLIBRARY_H
#define RLX_RUNTIME_SRC_DRIVERLIBRARY_H

#include <string>
#include <vector>

namespace rlxrt {

/// The dlopen handle of the first of `names` that loads, or null; `error`
/// gets dlerror()'s text for the first one. Thread-safe.
void *loadDriverLibrary(const std::vector<std::string> &names,
                        std::string &error);

/// The function `name` of `library`, or null.
void *findDriverSymbol(void *library, const char *name);

} // namespace rlxrt

#endif // RLX_RUNTIME_SRC_DRIVERLIBRARY_H
