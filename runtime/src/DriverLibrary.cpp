//===- DriverLibrary.cpp - Loading a GPU driver with dlopen ---------------===//

#include "DriverLibrary.h"

#include <dlfcn.h>
#include <map>
#include <mutex>

void *rlxrt::loadDriverLibrary(const std::vector<std::string> &names,
                             std::string &error) {
  // dlopen counts references itself; the map only keeps one per name so
  // that repeated attempts do not pile them up.
  static std::mutex mutex;
  static std::map<std::string, void *> loaded;
  std::lock_guard<std::mutex> lock(mutex);
  for (const std::string &name : names) {
    auto it = loaded.find(name);
    if (it != loaded.end())
      return it->second;
    dlerror();
    if (void *library = dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL)) {
      loaded[name] = library;
      return library;
    }
    // The first name is the one to report: the others are fallbacks.
    const char *message = dlerror();
    if (&name == &names.front())
      error = message ? message : name + " not found";
  }
  return nullptr;
}

void *rlxrt::findDriverSymbol(void *library, const char *name) {
  return dlsym(library, name);
}
