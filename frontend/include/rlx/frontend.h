//===- frontend.h - The rlx C++ tracing frontend ---------------*- C++ -*-===//
///
/// \file
/// One include for models: tracing (Scope, Tensor, ops, layers), transforms
/// (Func), compilation (jit) and training (make_train_step).
///
//===----------------------------------------------------------------------===//

#ifndef RLX_FRONTEND_H
#define RLX_FRONTEND_H

#include "rlx/frontend/Collectives.h"
#include "rlx/frontend/ControlFlow.h"
#include "rlx/frontend/Func.h"
#include "rlx/frontend/Jit.h"
#include "rlx/frontend/Layers.h"
#include "rlx/frontend/Ops.h"
#include "rlx/frontend/Random.h"
#include "rlx/frontend/Tensor.h"
#include "rlx/frontend/Train.h"
#include "rlx/frontend/Types.h"

#endif // RLX_FRONTEND_H
