//===- Parallelize.cpp - Outer loops over both cores ----------------------===//
///
/// \file
/// The vectorizing passes mark the outermost loop of each kernel that walks
/// a parallel dimension (`rlx.parallel`): matmul row tiles, rows of
/// elementwise ops and reductions over inner axes. Here each marked loop
/// becomes an `scf.parallel`, which upstream's SCF-to-OpenMP conversion
/// turns into a parallel region on the process-wide OpenMP thread pool
/// (one pool for every artifact a process loads, so several artifacts do
/// not oversubscribe the cores).
///
/// A fork costs microseconds, so a loop is parallel only when its work is
/// worth it: decided at compile time when the trip count is static, else by
/// a run-time test in front of a parallel and a serial copy of the loop.
/// The thread count of each region is set by rlx-cpu-thread-count
/// (ThreadCount.cpp).
///
//===----------------------------------------------------------------------===//

#include "codegen/CPU/Passes.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/OpenMP/OpenMPDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::rlx {
#define GEN_PASS_DEF_RLXCPUPARALLELIZE
#include "codegen/CPU/Passes.h.inc"
} // namespace mlir::rlx

using namespace mlir;

namespace {

/// Element operations below which a fork does not pay for itself (tens of
/// microseconds of vector work on one core; at 32K the MLP backward pass
/// lost time to forks).
constexpr int64_t kMinParallelWork = 1 << 18;
/// Trip count assumed for a nested loop whose bounds are not constants.
constexpr int64_t kUnknownTripCount = 16;

/// The trip count when the bounds are constants.
std::optional<int64_t> constantTripCount(scf::ForOp loop) {
  std::optional<int64_t> lb = getConstantIntValue(loop.getLowerBound());
  std::optional<int64_t> ub = getConstantIntValue(loop.getUpperBound());
  std::optional<int64_t> step = getConstantIntValue(loop.getStep());
  if (!lb || !ub || !step || *step <= 0)
    return std::nullopt;
  return std::max<int64_t>(0, (*ub - *lb + *step - 1) / *step);
}

/// Element operations of one iteration of `loop`: every op in its body
/// weighted by its vector width and the trip counts of the loops between.
int64_t workPerIteration(scf::ForOp loop) {
  int64_t work = 0;
  loop.getBody()->walk([&](Operation *op) {
    if (isa<scf::ForOp, scf::YieldOp>(op) || op->getNumRegions() != 0)
      return;
    int64_t elements = 1;
    // Stores have no result: their vector operand counts.
    for (Type type : llvm::concat<const Type>(op->getResultTypes(),
                                              op->getOperandTypes()))
      if (auto vector = dyn_cast<VectorType>(type))
        elements = std::max(elements, vector.getNumElements());
    for (Operation *parent = op->getParentOp(); parent != loop;
         parent = parent->getParentOp())
      if (auto inner = dyn_cast<scf::ForOp>(parent))
        elements *= constantTripCount(inner).value_or(kUnknownTripCount);
    work += elements;
  });
  return std::max<int64_t>(work, 1);
}

/// Moves `loop`'s body into a new scf.parallel over the same range.
void replaceWithParallel(RewriterBase &rewriter, scf::ForOp loop) {
  rewriter.setInsertionPoint(loop);
  auto parallel = scf::ParallelOp::create(
      rewriter, loop.getLoc(), ValueRange{loop.getLowerBound()},
      ValueRange{loop.getUpperBound()}, ValueRange{loop.getStep()});
  Block *body = parallel.getBody();
  rewriter.eraseOp(loop.getBody()->getTerminator());
  rewriter.inlineBlockBefore(loop.getBody(), body->getTerminator(),
                             body->getArguments());
  rewriter.eraseOp(loop);
}

void parallelize(RewriterBase &rewriter, scf::ForOp loop) {
  int64_t work = workPerIteration(loop);
  if (std::optional<int64_t> trips = constantTripCount(loop)) {
    if (*trips >= 2 && *trips * work >= kMinParallelWork)
      replaceWithParallel(rewriter, loop);
    return;
  }
  // Dynamic trip count: parallel when ceil((ub - lb) / step) * work is
  // large enough, else the serial loop.
  Location loc = loop.getLoc();
  rewriter.setInsertionPoint(loop);
  Value span = arith::SubIOp::create(rewriter, loc, loop.getUpperBound(),
                                     loop.getLowerBound());
  Value trips = arith::CeilDivSIOp::create(rewriter, loc, span, loop.getStep());
  Value minTrips = arith::ConstantIndexOp::create(
      rewriter, loc, std::max<int64_t>(2, (kMinParallelWork + work - 1) / work));
  Value worthIt = arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::sge,
                                        trips, minTrips);
  auto branch = scf::IfOp::create(rewriter, loc, worthIt, /*withElse=*/true);
  rewriter.setInsertionPoint(branch.elseBlock()->getTerminator());
  rewriter.clone(*loop);
  rewriter.moveOpBefore(loop, branch.thenBlock()->getTerminator());
  replaceWithParallel(rewriter, loop);
}

struct RLXCPUParallelizePass
    : mlir::rlx::impl::RLXCPUParallelizeBase<RLXCPUParallelizePass> {
  void runOnOperation() override {
    SmallVector<scf::ForOp> marked;
    getOperation().walk<WalkOrder::PreOrder>([&](scf::ForOp loop) {
      if (!loop->hasAttr("rlx.parallel"))
        return;
      loop->removeAttr("rlx.parallel");
      // Only the outermost marked loop of a nest forks; nested regions
      // would run serially inside anyway.
      if (loop.getNumRegionIterArgs() == 0 &&
          !loop->getParentOfType<scf::ParallelOp>() &&
          llvm::none_of(marked, [&](scf::ForOp outer) {
            return outer->isProperAncestor(loop);
          }))
        marked.push_back(loop);
    });
    IRRewriter rewriter(&getContext());
    for (scf::ForOp loop : marked)
      parallelize(rewriter, loop);
  }
};

} // namespace
