-- testsuite/interop/HeapBands.hs -- a heap profile as ghc-events reads it:
-- the number of censuses and each band's peak, for comparison with
-- `strata-events summary --top 0` (testsuite/scripts/ghc-logs.sh), or the
-- last census whole, for comparison with what strata-live and strata-html
-- show of it (ghc-logs.sh, live-page.sh, html.sh).
--
--   heap-bands FILE         "censuses N", then "PEAK<TAB>LABEL" per band, by label
--   heap-bands --last FILE  "censuses N", then "BYTES<TAB>LABEL" per band of the
--                           last census, by label
--
-- A band is a sample label (-hT, -hi, -he, -hd, -hy: the string samples),
-- or for -hc a cost-centre stack named as hp2ps and strata-events name it:
-- the cost centres innermost first joined by '/', a CAF as "Module.CAF",
-- the empty stack "MAIN", an undefined id "cc<id>".  Samples of one census
-- that share a name add up; a band's peak is its largest census.
module Main (main) where

import qualified Data.ByteString.Lazy as BL
import Data.List (intercalate, sortOn)
import qualified Data.Map.Strict as M
import qualified Data.Text as T
import qualified Data.Vector.Unboxed as VU
import Data.Word (Word32, Word64)
import GHC.RTS.Events
import GHC.RTS.Events.Incremental (readEventLog)
import System.Environment (getArgs)
import System.Exit (exitFailure)
import System.IO (hPutStrLn, stderr)

data St = St
  { stCensuses :: !Int
  , stCurrent :: !(M.Map String Word64)
  , stPeaks :: !(M.Map String Word64)
  , stLast :: !(M.Map String Word64)
  , stCcNames :: !(M.Map Word32 String)
  }

ccName :: T.Text -> T.Text -> String
ccName label modu
  | label == T.pack "CAF" && not (T.null modu) = T.unpack modu ++ ".CAF"
  | otherwise = T.unpack label

stackName :: M.Map Word32 String -> [Word32] -> String
stackName _ [] = "MAIN"
stackName names ids = intercalate "/" [M.findWithDefault ("cc" ++ show i) i names | i <- ids]

-- Ends the census being read (if any samples came since the last end): its
-- bands count for the peaks and are the last census so far.
closeCensus :: St -> St
closeCensus st
  | M.null (stCurrent st) = st
  | otherwise =
      st { stCurrent = M.empty, stPeaks = M.unionWith max (stPeaks st) (stCurrent st)
         , stLast = stCurrent st }

add :: String -> Word64 -> St -> St
add l n st = st {stCurrent = M.insertWith (+) l n (stCurrent st)}

step :: St -> Event -> St
step st ev = case evSpec ev of
  HeapProfSampleBegin {} -> (closeCensus st) {stCensuses = stCensuses st + 1, stLast = M.empty}
  HeapProfSampleEnd {} -> closeCensus st
  HeapProfSampleString {heapProfLabel = l, heapProfResidency = n} -> add (T.unpack l) n st
  HeapProfCostCentre {heapProfCostCentreId = i, heapProfLabel = l, heapProfModule = m} ->
    st {stCcNames = M.insertWith (\_ old -> old) i (ccName l m) (stCcNames st)}
  HeapProfSampleCostCentre {heapProfResidency = n, heapProfStack = s} ->
    add (stackName (stCcNames st) (VU.toList s)) n st
  _ -> st

main :: IO ()
main = do
  args <- getArgs
  (pick, file) <- case args of
    [f] -> return (stPeaks, f)
    ["--last", f] -> return (stLast, f)
    _ -> hPutStrLn stderr "usage: heap-bands [--last] FILE" >> exitFailure
  bytes <- BL.readFile file
  case readEventLog bytes of
    Left err -> hPutStrLn stderr (file ++ ": ghc-events rejected the header: " ++ err) >> exitFailure
    Right (EventLog _ (Data evs), mErr) -> do
      case mErr of
        Just err -> hPutStrLn stderr (file ++ ": ghc-events stopped: " ++ err) >> exitFailure
        Nothing -> return ()
      let st = closeCensus (foldl step (St 0 M.empty M.empty M.empty M.empty) evs)
      putStrLn ("censuses " ++ show (stCensuses st))
      mapM_ (\(l, n) -> putStrLn (show n ++ "\t" ++ l)) (sortOn fst (M.toList (pick st)))
