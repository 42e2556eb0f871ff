//===- AutodiffUtil.cpp - Plumbing of the rlx autodiff tests --------------===//

#include "AutodiffUtil.h"

#include <cerrno>
#include <csignal>
#include <cstring>

#include <sys/wait.h>
#include <unistd.h>

namespace rlx::autodiff {

IsolatedCheck
checkGradsIsolated(const rlx::runtime::Session &session, const std::string &fn,
                   const std::vector<rlx::runtime::HostTensor> &inputs,
                   const rlx::runtime::GradCheckOptions &options) {
  auto direct = [&] {
    IsolatedCheck check;
    try {
      rlx::runtime::GradCheckResult result =
          rlx::runtime::check_grads(session, fn, inputs, options);
      check.ran = true;
      check.passed = result.passed();
      check.summary = result.summary();
    } catch (const std::exception &e) {
      check.error = std::string("check_grads threw: ") + e.what();
    }
    return check;
  };
  // A GPU device does not survive fork: device sessions check in process.
  if (std::getenv("RLX_E2E_NO_FORK") || session.device() != RLX_DEVICE_CPU)
    return direct();
  e2e::ChildResult child = e2e::runInChild(
      [&] {
        IsolatedCheck check = direct();
        // One byte of flags, then the text (summary or error).
        std::string data(1, static_cast<char>((check.ran ? 1 : 0) |
                                              (check.passed ? 2 : 0)));
        return data + (check.ran ? check.summary : check.error);
      },
      120, "check_grads of '" + fn + "'");
  IsolatedCheck check;
  if (!child.ok || child.data.empty()) {
    check.error = child.ok ? "the checking child sent nothing" : child.error;
    return check;
  }
  const std::string &data = child.data;
  check.ran = data[0] & 1;
  check.passed = data[0] & 2;
  (check.ran ? check.summary : check.error) = data.substr(1);
  return check;
}

std::vector<Arr> call(const rlx::runtime::Session &session,
                      const std::string &entry,
                      const std::vector<Arr> &inputs) {
  std::vector<rlx::runtime::HostTensor> tensors;
  for (const Arr &a : inputs)
    tensors.push_back(e2e::toTensor(a));
  std::vector<Arr> outputs;
  try {
    rlx::runtime::TensorList list = session.call(entry, tensors);
    for (size_t i = 0; i < list.size(); ++i)
      outputs.push_back(e2e::fromTensor(list.at(i)));
  } catch (const rlx::runtime::RuntimeError &e) {
    ADD_FAILURE() << "calling '" << entry << "': " << e.what();
  }
  return outputs;
}

Arr f64(std::vector<int64_t> shape, std::vector<double> values) {
  Arr a(RLX_DTYPE_F64, std::move(shape));
  if (values.size() != a.v.size())
    throw std::runtime_error("f64(): " + std::to_string(values.size()) +
                             " values for " + e2e::shapeString(a.shape));
  a.v = std::move(values);
  return a;
}

} // namespace rlx::autodiff
