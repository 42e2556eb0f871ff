//===- RLXDialect.h - rlx dialect -------------------------------*- C++ -*-===//
///
/// \file
/// The rlx dialect and its ops.
///
//===----------------------------------------------------------------------===//

#ifndef RLX_DIALECTS_RLX_IR_RLXDIALECT_H
#define RLX_DIALECTS_RLX_IR_RLXDIALECT_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/SymbolTable.h"

#include "dialects/RLX/IR/FloatFormats.h"
#include "dialects/RLX/IR/MarkerUtils.h"
#include "dialects/RLX/IR/RLXTraits.h"

#include "dialects/RLX/IR/RLXInterfaces.h.inc"

#include "dialects/RLX/IR/RLXOpsDialect.h.inc"

#define GET_OP_CLASSES
#include "dialects/RLX/IR/RLXOps.h.inc"

#endif // RLX_DIALECTS_RLX_IR_RLXDIALECT_H
