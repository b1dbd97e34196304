/*
 * strata.h -- the whole public C API of the strata runtime.
 * See docs/api-guide.md for a walk-through.
 */
#ifndef STRATA_H
#define STRATA_H

#include "strata/Config.h"
#include "strata/Block.h"
#include "strata/ClosureTypes.h"
#include "strata/InfoTables.h"
#include "strata/Closures.h"
#include "strata/Regs.h"
#include "strata/Alloc.h"
#include "strata/Roots.h"
#include "strata/Weak.h"
#include "strata/Api.h"
#include "strata/Trace.h"
#include "strata/Ffi.h"
#include "strata/Debug.h"
#include "strata/Control.h"

#endif /* STRATA_H */
