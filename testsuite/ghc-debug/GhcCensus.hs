-- testsuite/ghc-debug/GhcCensus.hs -- GHC's own heap census, read from an
-- eventlog by ghc-events: the last complete sample that has a band LABEL,
-- one "label<TAB>bytes" line per band (testsuite/scripts/ghc-debug.sh
-- compares it with strata-debug's census of the same steady heap).  The
-- label picks a census of the steady state: the runtime takes one more
-- as the program exits, when its data may be gone.
import qualified Data.Map.Strict as M
import qualified Data.Text as T
import GHC.RTS.Events
import System.Environment (getArgs)
import System.Exit (die)

main :: IO ()
main = do
  [file, want] <- getArgs
  r <- readEventLogFromFile file
  EventLog _ (Data evs) <- either (die . ("ghc-census: " ++)) return r
  case lastSample (T.pack want) Nothing Nothing evs of
    Nothing -> die ("ghc-census: no complete heap census with a band " ++ want)
    Just bands -> mapM_ (\(l, b) -> putStrLn (T.unpack l ++ "\t" ++ show b)) (M.toList bands)

-- The sample being read, and the last one that ended with a band want.
lastSample :: T.Text -> Maybe (M.Map T.Text Integer) -> Maybe (M.Map T.Text Integer) -> [Event]
           -> Maybe (M.Map T.Text Integer)
lastSample _ _ done [] = done
lastSample want cur done (e : es) = case evSpec e of
  HeapProfSampleBegin {} -> lastSample want (Just M.empty) done es
  HeapProfSampleString _ bytes label ->
    lastSample want (M.insertWith (+) label (fromIntegral bytes) <$> cur) done es
  HeapProfSampleEnd {} ->
    let done' = case cur of
          Just bands | M.member want bands -> Just bands
          _ -> done
    in lastSample want Nothing done' es
  _ -> lastSample want cur done es
