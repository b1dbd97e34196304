-- testsuite/interop/GhcEventsCheck.hs -- reads an eventlog with the real
-- ghc-events library (Debian's 0.17) the way eventlog2html does, and fails
-- on anything it rejects.  Uses GHC.RTS.Events.Incremental, because
-- readEventLogFromFile silently drops a mid-stream parse error.
--
--   ghc-events-check FILE      exit 0 and a one-line summary, or exit 1
--
-- Besides parsing, it checks what a visualiser relies on: a heap profile
-- begins before its samples, samples are bracketed by begin/end, and in an
-- info-table (-hi) profile every sample label ("0x" + hex) has an IPE
-- event for that address, posted before the sample that uses it.
module Main (main) where

import qualified Data.ByteString.Lazy as BL
import Data.Maybe (isJust)
import qualified Data.Set as Set
import qualified Data.Text as T
import GHC.RTS.Events
import GHC.RTS.Events.Incremental (readEventLog)
import Numeric (readHex)
import System.Environment (getArgs)
import System.Exit (exitFailure)
import System.IO (hPutStrLn, stderr)

data St = St
  { stBreakdown :: Maybe HeapProfBreakdown
  , stIpes :: Set.Set Integer
  , stInSample :: Bool
  , stSamples :: Int
  , stStrings :: Int
  , stMarkers :: Int
  , stProblems :: [String]
  }

step :: St -> Event -> St
step st ev = case evSpec ev of
  HeapProfBegin {heapProfBreakdown = b} -> st {stBreakdown = Just b}
  InfoTableProv {itInfo = a} -> st {stIpes = Set.insert (fromIntegral a) (stIpes st)}
  HeapProfSampleBegin {} ->
    need (not (stInSample st)) "sample begins inside a sample" $
      need (isJust (stBreakdown st)) "sample before the heap profile begins" $
        st {stInSample = True, stSamples = stSamples st + 1}
  HeapProfSampleEnd {} -> need (stInSample st) "sample end without a begin" st {stInSample = False}
  HeapProfSampleString {heapProfLabel = l} ->
    need (stInSample st) "sample string outside a sample" $
      checkLabel (T.unpack l) st {stStrings = stStrings st + 1}
  UserMarker {} -> st {stMarkers = stMarkers st + 1}
  _ -> st
  where
    need ok msg s = if ok then s else s {stProblems = msg : stProblems s}
    -- .inv.ipe-before-sample: an IPE seen before the label's sample.
    checkLabel l s = case (stBreakdown s, l) of
      (Just HeapProfBreakdownInfoTable, '0' : 'x' : hex) -> case readHex hex of
        [(a, "")] | a `Set.member` stIpes s -> s
        _ -> s {stProblems = ("-hi label without an IPE event: " ++ l) : stProblems s}
      (Just HeapProfBreakdownInfoTable, _) ->
        s {stProblems = ("-hi label is not 0x + hex: " ++ l) : stProblems s}
      _ -> s

main :: IO ()
main = do
  args <- getArgs
  file <- case args of
    [f] -> return f
    _ -> hPutStrLn stderr "usage: ghc-events-check FILE" >> exitFailure
  bytes <- BL.readFile file
  case readEventLog bytes of
    Left err -> failWith file ("ghc-events rejected the header: " ++ err)
    Right (EventLog _ (Data evs), mErr) -> do
      let st = foldl step (St Nothing Set.empty False 0 0 0 []) evs
          n = length evs
      case mErr of
        Just err -> failWith file ("ghc-events stopped after " ++ show n ++ " events: " ++ err)
        Nothing -> return ()
      case reverse (stProblems st) of
        (p : _) -> failWith file p
        [] -> return ()
      putStrLn $
        file ++ ": ghc-events OK: " ++ show n ++ " events, "
          ++ maybe "no heap profile" (\b -> "breakdown " ++ show b) (stBreakdown st)
          ++ ", " ++ show (stSamples st) ++ " samples, " ++ show (stStrings st)
          ++ " sample strings, " ++ show (Set.size (stIpes st)) ++ " IPE, "
          ++ show (stMarkers st) ++ " markers"
  where
    failWith f msg = hPutStrLn stderr (f ++ ": " ++ msg) >> exitFailure
