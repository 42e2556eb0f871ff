//===- SourceLimits.h - Limits on MLIR text before it is parsed -*- C++ -*-===//
///
/// \file
/// MLIR's parser crashes on some text instead of reporting it, so the tools
/// check the text first and refuse it with a located error:
/// - it recurses once per nesting level of attributes and types; an
///   attribute nested 10,000 deep overflowed the stack of rlxc and rlx-opt
///   with no message;
/// - a dense array of `index` elements (`array<index: 1>`) reads the width
///   of `index` as a float's and dereferences null (the array syntax takes
///   only integer and float elements; `index` has no storage width).
///
//===----------------------------------------------------------------------===//

#ifndef RLX_CODEGEN_SOURCELIMITS_H
#define RLX_CODEGEN_SOURCELIMITS_H

#include "mlir/Support/LogicalResult.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <optional>

namespace mlir::rlx {

/// The deepest nesting rlxc and rlx-opt accept: far beyond real models,
/// and well within the stack of the parser and of the passes that recurse
/// over nested attributes.
constexpr unsigned kMaxNestingDepth = 1000;

/// The offset of the first bracket of `text` (`(`, `[`, `{`, `<`) that
/// opens level `maxDepth + 1`, outside string literals and `//` comments;
/// std::nullopt when none does. `>` closes only a `<` (so `->` and `>=` do
/// not count) and a `)`, `]` or `}` also closes any `<` left open inside.
std::optional<size_t> findNestingDeeperThan(llvm::StringRef text,
                                            unsigned maxDepth);

/// The offset of the first `array<index` (whitespace, NUL characters and
/// comments allowed around `<`, as the lexer skips them) outside
/// string literals and `//` comments, where `array` starts a keyword (not
/// the tail of `!dialect.array`); std::nullopt when there is none.
std::optional<size_t> findIndexDenseArray(llvm::StringRef text);

/// The first reason the parser cannot be trusted with `text`, as a message
/// and the offset it points at; std::nullopt when there is none.
struct UnparseableText {
  size_t offset;
  std::string message;
};
std::optional<UnparseableText>
findUnparseableText(llvm::StringRef text,
                    unsigned maxDepth = kMaxNestingDepth);

/// Fails, printing `file:line:col: error: ...` for the first reason in
/// `findUnparseableText` to `os`.
LogicalResult checkParseable(const llvm::MemoryBuffer &buffer,
                             llvm::raw_ostream &os,
                             unsigned maxDepth = kMaxNestingDepth);

} // namespace mlir::rlx

#endif // RLX_CODEGEN_SOURCELIMITS_H
