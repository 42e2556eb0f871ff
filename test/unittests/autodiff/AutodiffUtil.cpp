//===- AutodiffUtil.cpp - Plumbing of the rlx autodiff tests --------------===//

#include "AutodiffUtil.h"

#include <cerrno>
#include <csignal>
#include <cstring>

#include <sys/wait.h>
#include <unistd.h>

namespace rlx::autodiff {



IsolatedCheck checkGradsIsolated(const rlx::Session &session,
                                 const std::string &fn,
                                 const std::vector<rlx::Tensor> &inputs,
                                 const rlx::GradCheckOptions &options) {
  auto direct = [&] {
    IsolatedCheck check;
    try {
      rlx::GradCheckResult result =
          rlx::checkGrads(session, fn, inputs, options);
      check.ran = true;
      check.passed = result.passed();
      check.summary = result.summary();
    } catch (const std::exception &e) {
      check.error = std::string("checkGrads threw: ") + e.what();
    }
    return check;
  };
  if (std::getenv("RLX_E2E_NO_FORK"))
    return direct();
  int fds[2];
  if (pipe(fds) != 0)
    throw std::runtime_error("pipe failed");
  std::fflush(nullptr);
  pid_t pid = fork();
  if (pid < 0)
    throw std::runtime_error("fork failed");
  if (pid == 0) {
    close(fds[0]);
    alarm(120);
    IsolatedCheck check = direct();
    // One byte of flags, then the text (summary or error).
    std::string data(1, static_cast<char>((check.ran ? 1 : 0) |
                                          (check.passed ? 2 : 0)));
    data += check.ran ? check.summary : check.error;
    size_t done = 0;
    while (done < data.size()) {
      ssize_t n = write(fds[1], data.data() + done, data.size() - done);
      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        _exit(3);
      done += static_cast<size_t>(n);
    }
    _exit(0);
  }
  close(fds[1]);
  std::string data = e2e::readAllFd(fds[0]);
  close(fds[0]);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  IsolatedCheck check;
  if (WIFSIGNALED(status)) {
    int sig = WTERMSIG(status);
    check.error = "checkGrads of '" + fn + "' crashed: signal " +
                  std::to_string(sig) + " (" + strsignal(sig) + ")" +
                  (sig == SIGALRM ? ", it ran over 120 s" : "");
    return check;
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || data.empty()) {
    check.error = "the checking child exited with status " +
                  std::to_string(WEXITSTATUS(status));
    return check;
  }
  check.ran = data[0] & 1;
  check.passed = data[0] & 2;
  (check.ran ? check.summary : check.error) = data.substr(1);
  return check;
}

std::vector<Arr> call(const rlx::Session &session, const std::string &entry,
                      const std::vector<Arr> &inputs) {
  std::vector<rlx::Tensor> tensors;
  for (const Arr &a : inputs)
    tensors.push_back(e2e::toTensor(a));
  std::vector<Arr> outputs;
  try {
    rlx::TensorList list = session.call(entry, tensors);
    for (size_t i = 0; i < list.size(); ++i)
      outputs.push_back(e2e::fromTensor(list.at(i)));
  } catch (const rlx::RuntimeError &e) {
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
