//===- MarkerExpansion.h - What the marker expansions share -----*- C++ -*-===//
///
/// \file
/// The pieces every marker expansion uses: the recursion check, which
/// markers are ready (their callee reaches no marker), flattening a callee
/// into a scratch function, cloning it as a forward sweep, and scratch
/// functions. One MarkerExpansion per pass run owns the symbol tables: its
/// lookups, the functions it adds and those rules add go through them.
///
//===----------------------------------------------------------------------===//

#ifndef RLX_DIALECTS_RLX_TRANSFORMS_MARKEREXPANSION_H
#define RLX_DIALECTS_RLX_TRANSFORMS_MARKEREXPANSION_H

#include "dialects/RLX/IR/RLXDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/StringMap.h"

namespace mlir::rlx {

/// The unit attribute on functions that exist only for a marker expansion
/// (a Jacobian's jvp or vjp function, an hvp's gradient function);
/// rlx-autodiff erases them once nothing names them.
inline constexpr llvm::StringLiteral kScratchAttrName = "rlx.autodiff_scratch";

/// Fails at each marker whose callee reaches a recursive function (through
/// calls, markers or custom rules): flattening would inline or expand it
/// forever. Without one, expansion ends: the functions form a DAG through
/// the names they use, and every marker an expansion emits names a function
/// below the one the expanded marker named.
mlir::LogicalResult checkNoRecursion(mlir::ModuleOp module,
                                     mlir::SymbolTableCollection &symbols);

/// Whether the module holds any marker.
bool hasMarkers(mlir::ModuleOp module);

class MarkerExpansion {
public:
  explicit MarkerExpansion(mlir::ModuleOp module) : module(module) {}
  ~MarkerExpansion() { eraseFlattened(); }

  mlir::ModuleOp getModule() { return module; }
  mlir::SymbolTableCollection &getSymbols() { return symbols; }

  /// The markers of kind `OpTy...` whose callee reaches no marker, in
  /// module order. Expanding one only changes the function holding it and
  /// adds functions, so the others stay ready.
  template <typename... OpTy>
  llvm::SmallVector<TransformMarkerOpInterface> readyMarkers() {
    return readyMarkers([](mlir::Operation *op) { return mlir::isa<OpTy...>(op); });
  }
  llvm::SmallVector<TransformMarkerOpInterface>
  readyMarkers(llvm::function_ref<bool(mlir::Operation *)> ofKind);

  /// A private copy of `callee` (marker-free) with every call inlined and
  /// the params of its remats, loops and branches explicit; erased when the expansion ends.
  mlir::FailureOr<mlir::func::FuncOp> flatten(mlir::func::FuncOp callee);

  /// The forward sweep: `flat`'s body cloned before the builder's point.
  struct Forward {
    llvm::SmallVector<mlir::Operation *> ops; ///< clones, in order
    llvm::SmallVector<mlir::Value> inputs;    ///< per flat argument
    llvm::SmallVector<mlir::Value> results;   ///< per flat result
    llvm::StringMap<llvm::SmallVector<mlir::Value>> params; ///< per param name
  };

  /// Clones `flat`'s body with its arguments bound to `args`. Input leaves
  /// get a fresh identity (tensor.cast) so that the same value passed twice
  /// keeps two adjoints. `onClone` (if any) sees each clone as it is made;
  /// its failure stops the sweep.
  mlir::FailureOr<Forward>
  cloneForward(mlir::func::FuncOp flat, mlir::ValueRange args,
               llvm::ArrayRef<Leaf> leaves, mlir::OpBuilder &b,
               llvm::function_ref<mlir::LogicalResult(mlir::Operation *)>
                   onClone = nullptr);

  /// A private scratch function `name__rlx_N(inputs) -> results` (tagged
  /// kScratchAttrName) whose body `build` fills and returns.
  mlir::func::FuncOp scratchFunction(
      llvm::StringRef name, mlir::TypeRange inputs, mlir::TypeRange results,
      mlir::Location loc,
      llvm::function_ref<llvm::SmallVector<mlir::Value>(mlir::OpBuilder &,
                                                        mlir::ValueRange)>
          build);

  /// Erases the flattened copies nothing needs any more.
  void eraseFlattened();

private:
  bool reachesMarker(mlir::func::FuncOp fn);
  mlir::LogicalResult makeBodyParamsExplicit(mlir::func::FuncOp func);
  mlir::FailureOr<llvm::SmallVector<mlir::func::FuncOp>> withParamArguments(
      llvm::ArrayRef<mlir::func::FuncOp> bodies,
      const llvm::MapVector<llvm::StringRef, mlir::RankedTensorType> &params,
      unsigned position);
  mlir::LogicalResult inlineCall(mlir::func::CallOp call);

  mlir::ModuleOp module;
  mlir::SymbolTableCollection symbols;
  llvm::DenseMap<mlir::Operation *, bool> reaches; ///< reachesMarker, memoized
  llvm::SmallVector<mlir::func::FuncOp> flattened;
  llvm::DenseSet<mlir::Operation *> kept; ///< flattened, but named by a remat
  unsigned counter = 0;
};

} // namespace mlir::rlx

#endif // RLX_DIALECTS_RLX_TRANSFORMS_MARKEREXPANSION_H
