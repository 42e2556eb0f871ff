//===- SourceLimits.cpp - Limits on MLIR text before it is parsed ---------===//
///
/// \file
/// Lexical scans, linear in the text, that know just enough of MLIR's
/// syntax (string literals, comments, `->`, identifiers) to find what the
/// parser would crash on.
///
//===----------------------------------------------------------------------===//

#include "codegen/SourceLimits.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/SourceMgr.h"

using namespace mlir;

namespace {

/// Calls `visit(i)` for every offset of `text` outside string literals and
/// `//` comments, in order, until it returns true; returns that offset.
template <typename Visit>
std::optional<size_t> scanCode(llvm::StringRef text, Visit visit) {
  for (size_t i = 0, e = text.size(); i < e; ++i) {
    char c = text[i];
    if (c == '"') {
      // A string literal ends at its closing quote or, unterminated, at the
      // end of the line, as MLIR's lexer has it.
      for (++i; i < e && text[i] != '"' && text[i] != '\n'; ++i)
        if (text[i] == '\\')
          ++i;
      continue;
    }
    if (c == '/' && i + 1 < e && text[i + 1] == '/') {
      while (i < e && text[i] != '\n')
        ++i;
      continue;
    }
    if (visit(i))
      return i;
  }
  return std::nullopt;
}

/// Whether `c` can continue an MLIR identifier (bare ids, dialect names).
bool isIdentifierChar(char c) {
  return llvm::isAlnum(c) || c == '_' || c == '$' || c == '.';
}

/// `text` without what MLIR's lexer skips between tokens at its front:
/// whitespace, NUL characters (skipped like spaces, not an end) and `//`
/// comments. `array<\0index` crashed the parser as `array<index` does.
llvm::StringRef dropTrivia(llvm::StringRef text) {
  while (true) {
    text = text.ltrim(llvm::StringRef(" \t\n\v\f\r\0", 7));
    if (!text.starts_with("//"))
      return text;
    text = text.drop_until([](char c) { return c == '\n'; });
  }
}

} // namespace

std::optional<size_t> mlir::rlx::findNestingDeeperThan(llvm::StringRef text,
                                                       unsigned maxDepth) {
  llvm::SmallVector<char> open;
  return scanCode(text, [&](size_t i) {
    switch (char c = text[i]) {
    case '(':
    case '[':
    case '{':
    case '<':
      open.push_back(c);
      return open.size() > maxDepth;
    case '>':
      if (!open.empty() && open.back() == '<' && !(i > 0 && text[i - 1] == '-'))
        open.pop_back();
      return false;
    case ')':
    case ']':
    case '}': {
      char opener = c == ')' ? '(' : c == ']' ? '[' : '{';
      while (!open.empty() && open.back() == '<')
        open.pop_back();
      if (!open.empty() && open.back() == opener)
        open.pop_back();
      return false;
    }
    default:
      return false;
    }
  });
}

std::optional<size_t> mlir::rlx::findIndexDenseArray(llvm::StringRef text) {
  return scanCode(text, [&](size_t i) {
    llvm::StringRef rest = text.drop_front(i);
    if (!rest.consume_front("array") ||
        (i > 0 && (isIdentifierChar(text[i - 1]) || text[i - 1] == '!' ||
                   text[i - 1] == '#')))
      return false;
    rest = dropTrivia(rest);
    if (!rest.consume_front("<"))
      return false;
    rest = dropTrivia(rest);
    return rest.consume_front("index") &&
           (rest.empty() || !isIdentifierChar(rest.front()));
  });
}

std::optional<mlir::rlx::UnparseableText>
mlir::rlx::findUnparseableText(llvm::StringRef text, unsigned maxDepth) {
  if (std::optional<size_t> offset = findNestingDeeperThan(text, maxDepth))
    return UnparseableText{*offset,
                           "nesting deeper than " + std::to_string(maxDepth) +
                               " (brackets, braces, parentheses, angle "
                               "brackets)"};
  if (std::optional<size_t> offset = findIndexDenseArray(text))
    return UnparseableText{*offset,
                           "a dense array of 'index' elements: array<T: ...> "
                           "takes integer or float elements (use i64)"};
  return std::nullopt;
}

LogicalResult mlir::rlx::checkParseable(const llvm::MemoryBuffer &buffer,
                                        llvm::raw_ostream &os,
                                        unsigned maxDepth) {
  std::optional<UnparseableText> found =
      findUnparseableText(buffer.getBuffer(), maxDepth);
  if (!found)
    return success();
  // Only the position: the line itself may be megabytes of brackets.
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBuffer(buffer.getMemBufferRef(),
                                       /*RequiresNullTerminator=*/false),
      llvm::SMLoc());
  auto [line, column] = sourceMgr.getLineAndColumn(
      llvm::SMLoc::getFromPointer(buffer.getBufferStart() + found->offset));
  os << buffer.getBufferIdentifier() << ":" << line << ":" << column
     << ": error: " << found->message << "\n";
  return failure();
}
