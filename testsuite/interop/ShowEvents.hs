-- testsuite/interop/ShowEvents.hs -- an eventlog as the real ghc-events
-- library (Debian's 0.17) reads it, written in `strata-events show`'s
-- layout, so that the show goldens (testsuite/golden/*.show.reference,
-- written by strata-events itself) are checked field by field by a reader
-- that is not strata's: testsuite/scripts/interop.sh compares them.
--
--   show-events FILE   "Event types:", the header's types, a blank line,
--                      "Events:", then a line per event; exit 1 if
--                      ghc-events rejects the log, 2 on an event this
--                      program does not render
--
-- What ghc-events does not keep has no line or ends early, and interop.sh
-- compares the golden's lines likewise: block markers (ghc-events reads
-- through them), and the payload of an event type it does not know (the
-- line ends at "N bytes:", N from the header).
module Main (main) where

import qualified Data.ByteString as B
import qualified Data.ByteString.Lazy as BL
import Data.Bits (shiftR, (.&.))
import Data.Char (ord)
import Data.List (intercalate)
import qualified Data.Map.Strict as M
import qualified Data.Text as T
import qualified Data.Text.Encoding as TE
import GHC.RTS.Events
import GHC.RTS.Events.Incremental (readEventLog)
import Numeric (showHex)
import System.Environment (getArgs)
import System.Exit (exitFailure, exitWith, ExitCode (ExitFailure))
import System.IO (hPutStrLn, hSetEncoding, stderr, stdout, utf8)
import Text.Printf (printf)

-- strata-events' quoting (Note [One way to write a string] in
-- wire/TextOut.c): '"' and '\' escaped, each UTF-8 byte of a control
-- character (U+0000-U+001F, U+007F-U+009F) as \xNN, every other character
-- as itself.  ghc-events rejects a string that is not UTF-8, so the policy's
-- \xNN for a bad byte never arises here.
quote :: T.Text -> String
quote t = "\"" ++ concatMap esc (T.unpack t) ++ "\""
  where
    esc c
      | c == '"' || c == '\\' = ['\\', c]
      | ord c < 0x20 || (ord c >= 0x7f && ord c <= 0x9f) =
          concatMap (printf "\\x%02x") (B.unpack (TE.encodeUtf8 (T.singleton c)))
      | otherwise = [c]

hexBytes :: [Integer] -> String
hexBytes = unwords . map (printf "%02x")

-- Big-endian bytes of n, w bytes wide (the eventlog's byte order).
be :: Int -> Integer -> [Integer]
be w n = [n `shiftR` (8 * k) .&. 0xff | k <- [w - 1, w - 2 .. 0]]

breakdown :: HeapProfBreakdown -> (Int, String, String)
breakdown b = case b of
  HeapProfBreakdownCostCentre -> (1, "-hc", "cost centre stack")
  HeapProfBreakdownModule -> (2, "-hm", "module")
  HeapProfBreakdownClosureDescr -> (3, "-hd", "closure description")
  HeapProfBreakdownTypeDescr -> (4, "-hy", "type description")
  HeapProfBreakdownRetainer -> (5, "-hr", "retainer set")
  HeapProfBreakdownBiography -> (6, "-hb", "biography")
  HeapProfBreakdownClosureType -> (7, "-hT", "closure type")
  HeapProfBreakdownInfoTable -> (8, "-hi", "info table")

capsetTypeCode :: CapsetType -> Integer
capsetTypeCode t = case t of
  CapsetCustom -> 1
  CapsetOsProcess -> 2
  CapsetClockDomain -> 3
  CapsetUnknown -> 0

-- The event's type number and what follows its description, if anything.
render :: M.Map Int EventType -> EventInfo -> Maybe (Int, Maybe String)
render types e = case e of
  StartGC -> Just (9, Nothing)
  EndGC -> Just (10, Nothing)
  UserMessage {msg = m} -> Just (19, Just (quote m))
  CapsetCreate {capset = c, capsetType = t} ->
    Just (25, Just ("6 bytes: " ++ hexBytes (be 4 (fromIntegral c) ++ be 2 (capsetTypeCode t))))
  RtsIdentifier {capset = c, rtsident = r} ->
    Just (29, Just (printf "capset %d, %s" c (quote r)))
  ProgramArgs {capset = c, args = as} ->
    Just (30, Just (printf "capset %d, [%s]" c (intercalate ", " (map quote as))))
  WallClockTime {capset = c, sec = s, nsec = ns} ->
    Just (43, Just (printf "capset %d, %d s %d ns" c s ns))
  HeapAllocated {heapCapset = c, allocBytes = n} -> Just (49, Just (capsetBytes c n))
  HeapSize {heapCapset = c, sizeBytes = n} -> Just (50, Just (capsetBytes c n))
  HeapLive {heapCapset = c, liveBytes = n} -> Just (51, Just (capsetBytes c n))
  UserMarker {markername = m} -> Just (58, Just (quote m))
  BlocksSize {heapCapset = c, blocksSize = n} -> Just (91, Just (capsetBytes c n))
  HeapProfBegin {heapProfId = i, heapProfSamplingPeriod = p, heapProfBreakdown = b} ->
    let (n, flag, name) = breakdown b
     in Just (160, Just (printf "profile %d, breakdown %d (%s, %s), interval %d ns" i n flag name p))
  HeapProfSampleBegin {heapProfSampleEra = c} -> Just (162, Just ("census counter " ++ show c))
  HeapProfSampleString {heapProfId = i, heapProfResidency = n, heapProfLabel = l} ->
    Just (164, Just (printf "profile %d, %d bytes, %s" i n (quote l)))
  HeapProfSampleEnd {heapProfSampleEra = c} -> Just (165, Just ("census counter " ++ show c))
  InfoTableProv {itInfo = a, itTableName = t, itClosureDesc = d, itTyDesc = y, itLabel = l,
                 itModule = m, itSrcLoc = s} ->
    Just (169, Just (printf "info 0x%s, table %s, closure desc %s, type %s, label %s, module %s, srcloc %s"
                      (showHex a "") (quote t) (quote (T.pack (show d))) (quote y) (quote l)
                      (quote m) (quote s)))
  UnknownEvent {ref = r} ->
    let n = fromIntegral r
     in Just (n, Just (maybe "variable bytes:" (\sz -> show sz ++ " bytes:") (M.lookup n types >>= size)))
  _ -> Nothing
  where
    capsetBytes c n = printf "capset %d, %d bytes" c n

typeLine :: EventType -> String
typeLine t = printf "%5d: %s (size %s)" (num t) (T.unpack (desc t))
                    (maybe "variable" show (size t))

main :: IO ()
main = do
  hSetEncoding stdout utf8
  args <- getArgs
  file <- case args of
    [f] -> return f
    _ -> hPutStrLn stderr "usage: show-events FILE" >> exitFailure
  bytes <- BL.readFile file
  case readEventLog bytes of
    Left err -> hPutStrLn stderr (file ++ ": ghc-events rejected the header: " ++ err) >> exitFailure
    Right (EventLog (Header ets) (Data evs), mErr) -> do
      let types = M.fromList [(fromIntegral (num t), t) | t <- ets]
      putStrLn "Event types:"
      mapM_ (putStrLn . typeLine) ets
      putStrLn ""
      putStrLn "Events:"
      mapM_ (line types) evs
      case mErr of
        Just err -> hPutStrLn stderr (file ++ ": ghc-events stopped: " ++ err) >> exitFailure
        Nothing -> return ()
  where
    line types ev = case render types (evSpec ev) of
      Nothing -> hPutStrLn stderr ("show-events: no rendering of " ++ show (evSpec ev)) >> exitWith (ExitFailure 2)
      Just (n, rest) -> do
        let what = maybe ("event " ++ show n) (T.unpack . desc) (M.lookup n types)
            cap = maybe "" (\c -> "cap " ++ show c ++ ": ") (evCap ev)
        putStrLn (printf "%12d: " (evTime ev) ++ cap ++ what ++ maybe "" (": " ++) rest)
