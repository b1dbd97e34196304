/*
 * utils/debug-client/DebugClient.h -- the heap debugger's client library,
 * for the tools: one API over a live program's debug socket (Client.h)
 * or a snapshot file (Snapshot.h), closures decoded with their info
 * tables (Decode.h), sampled objects' allocation sites (AllocSites.h),
 * and the files that hold heap contents
 * (PrivateFile.h); the data is DebugTypes.h's.  The analyses are in
 * DebugAnalysis.h.  strata-debug and its terminal UI are built on it.
 * See docs/strata-debug.md and docs/debug-protocol.md.
 *
 * Declares nothing of its own: each module's header is its whole API,
 * and the library's own files include the headers they use, never this
 * one (so that no module depends on all the others).
 */
#ifndef STRATA_DEBUGCLIENT_H
#define STRATA_DEBUGCLIENT_H

#include "AllocSites.h"
#include "Client.h"
#include "DebugTypes.h"
#include "Decode.h"
#include "PrivateFile.h"
#include "RootText.h"
#include "Snapshot.h"

#endif /* STRATA_DEBUGCLIENT_H */
