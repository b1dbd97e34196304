-- testsuite/interop/IpeDump.hs -- prints the IPE events of an eventlog as
-- the real ghc-events library (Debian's 0.17) decodes them, one per line,
-- so that testsuite/scripts/interop.sh can check that info tables without
-- explicit provenance carry their symbol names and file:line (derived
-- from DWARF, docs/design/provenance.md).
--
--   ipe-dump FILE   lines "0x<addr>|<table>|<desc>|<type>|<label>|<module>|<srcloc>"
--                   exit 1 if ghc-events rejects the log
module Main (main) where

import qualified Data.ByteString.Lazy as BL
import Data.List (intercalate)
import qualified Data.Text as T
import GHC.RTS.Events
import GHC.RTS.Events.Incremental (readEventLog)
import Numeric (showHex)
import System.Environment (getArgs)
import System.Exit (exitFailure)
import System.IO (hPutStrLn, stderr)

line :: EventInfo -> Maybe String
line InfoTableProv {itInfo = a, itTableName = t, itClosureDesc = d, itTyDesc = y,
                    itLabel = l, itModule = m, itSrcLoc = s} =
  Just $ intercalate "|"
    ["0x" ++ showHex a "", T.unpack t, show d, T.unpack y, T.unpack l, T.unpack m, T.unpack s]
line _ = Nothing

main :: IO ()
main = do
  args <- getArgs
  file <- case args of
    [f] -> return f
    _ -> hPutStrLn stderr "usage: ipe-dump FILE" >> exitFailure
  bytes <- BL.readFile file
  case readEventLog bytes of
    Left err -> hPutStrLn stderr (file ++ ": ghc-events rejected the header: " ++ err) >> exitFailure
    Right (EventLog _ (Data evs), mErr) -> do
      mapM_ putStrLn [l | Just l <- map (line . evSpec) evs]
      case mErr of
        Just err -> hPutStrLn stderr (file ++ ": ghc-events stopped: " ++ err) >> exitFailure
        Nothing -> return ()
