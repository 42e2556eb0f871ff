//===- TraceIR.h - The MLIR behind traced functions and tensors -*- C++ -*-===//
///
/// \file
/// A trace builds a `func.func` with the rlx dialect's builders in one
/// MLIRContext shared by every trace (functions call each other, so their
/// bodies must be clonable into one module). A Tensor holds the opaque
/// pointer of its mlir::Value. Diagnostics are captured by a handler and
/// turned into rlx::Error by frontend code, so no exception crosses MLIR.
///
//===----------------------------------------------------------------------===//

#ifndef RLX_FRONTEND_LIB_TRACEIR_H
#define RLX_FRONTEND_LIB_TRACEIR_H

#include "rlx/frontend/Func.h"
#include "rlx/frontend/Ops.h"

#include "dialects/RLX/IR/CheckedBuilders.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"

#include <mutex>
#include <set>

namespace rlx::detail {

/// The context every trace builds in, with the compiler's dialects loaded.
/// Each function body holds it, so it outlives them all.
std::shared_ptr<mlir::MLIRContext> sharedContext();

/// A traced function's IR: a func.func outside any module. Callees are
/// referenced by the placeholder symbols `#<index>` into FuncDef::callees
/// (see buildModule).
struct FuncBody {
  std::shared_ptr<mlir::MLIRContext> context;
  mlir::OwningOpRef<mlir::func::FuncOp> func;
};

/// Collects the diagnostics emitted while it lives: those of this thread,
/// or of every thread with `allThreads` (compiler passes run on a pool).
class DiagnosticCapture {
public:
  explicit DiagnosticCapture(bool allThreads = false);
  ~DiagnosticCapture();
  DiagnosticCapture(const DiagnosticCapture &) = delete;
  DiagnosticCapture &operator=(const DiagnosticCapture &) = delete;

  void add(mlir::Diagnostic &diagnostic);
  /// The errors' messages joined by "; " (as a trace error says them).
  std::string errors() const;
  /// Every diagnostic, one a line: `<loc>: error: <message>`.
  std::string all() const;

private:
  mutable std::mutex mutex;
  std::vector<std::pair<std::string, std::string>> lines, errorLines;
  DiagnosticCapture *outer;
  bool allThreads;
};

mlir::Type toMLIR(const TensorType &type);
TensorType fromMLIR(mlir::Type type);
mlir::Location toMLIR(SourceLoc loc);

mlir::Value valueOf(const Tensor &tensor);
Tensor tensorOf(Scope &scope, mlir::Value value);
/// A builder at the end of the scope's function.
mlir::OpBuilder builderOf(Scope &scope);

/// The scope an op on `xs` is built in: the innermost of theirs (operands
/// of enclosing scopes are captured by a loop or branch body). Throws
/// `rlx::<op>: ...` for an empty Tensor, tensors of unrelated traces or no
/// tensor at all.
Scope &commonScope(const std::string &op, const std::vector<Tensor> &xs,
                   SourceLoc loc);

/// Verifies the new `op` (alone) and returns its results as tensors; on a
/// verifier error erases it and throws `rlx::<what>: <error> (at file:line)`.
std::vector<Tensor> checked(Scope &scope, mlir::Operation *op,
                            DiagnosticCapture &capture, const std::string &what,
                            SourceLoc loc);

/// `OpTy` built by its inferring builder from `args` (tensors, attributes)
/// at the user's `loc`; the op's shape rule or verifier error is thrown.
template <typename OpTy, typename... Args>
Tensor build(Scope &scope, const std::string &what, SourceLoc loc,
             Args &&...args) {
  DiagnosticCapture capture;
  mlir::OpBuilder b = builderOf(scope);
  mlir::FailureOr<OpTy> op =
      mlir::rlx::createChecked<OpTy>(b, toMLIR(loc), std::forward<Args>(args)...);
  if (mlir::failed(op))
    throw Error("rlx::" + what + ": " + capture.errors() + loc.suffix());
  return checked(scope, *op, capture, what, loc)[0];
}

/// `OpTy` with an explicit result type (reshape, broadcast_in_dim, cast,
/// constant, param), verified.
template <typename OpTy, typename... Args>
Tensor buildTyped(Scope &scope, const std::string &what, SourceLoc loc,
                  const TensorType &type, Args &&...args) {
  DiagnosticCapture capture;
  mlir::OpBuilder b = builderOf(scope);
  OpTy op =
      OpTy::create(b, toMLIR(loc), toMLIR(type), std::forward<Args>(args)...);
  return checked(scope, op, capture, what, loc)[0];
}

/// `f` with a fake_quant after each read of a param in `params` and, with
/// `activations`, before the other f32/f64 operands of each matmul and
/// conv2d, in `f` and its callees (fake_quant_params after its checks; the
/// train step's QAT).
Func quantizedReads(const Func &f, const std::set<std::string> &params,
                    const FloatFormat &format, bool activations,
                    SourceLoc loc);

/// The module holding `def` (public, under its own name) and every function
/// it refers to (private; a name clash is renamed `name_1`).
mlir::OwningOpRef<mlir::ModuleOp> buildModule(const FuncDef &def);

} // namespace rlx::detail

#endif // RLX_FRONTEND_LIB_TRACEIR_H
