-- testsuite/ghc-debug/MapHeld.hs -- a GHC program holding a Data.Map of
-- exactly 100,000 entries whose keys are a constructor of their own, so
-- that a census counts both exactly (testsuite/scripts/ghc-debug.sh).  The
-- stub starts from STRATA_DEBUG_SOCKET.  After "ready" the heap holds
-- still: the program looks keys up and collects (a census each time under
-- +RTS -hT) until the file named by its argument appears.  It keeps busy
-- between collections: an idle GHC program stops its timer, and with it
-- the heap profile's censuses.
import Control.Monad (unless, when)
import Data.List (foldl')
import qualified Data.Map.Strict as M
import System.Directory (doesFileExist)
import System.Environment (getArgs)
import System.IO (hFlush, stdout)
import System.Mem (performMajorGC)

data Key = Key !Int deriving (Eq, Ord)

main :: IO ()
main = do
  [stop, n] <- getArgs
  let m = M.fromList [(Key i, ()) | i <- [1 .. read n]]
  putStrLn ("entries " ++ show (M.size m))
  putStrLn "ready"
  hFlush stdout
  let loop i = do
        when (M.notMember (Key (i `mod` M.size m + 1)) m) $ putStrLn "a key is missing"
        -- Busy for a few milliseconds, allocating only garbage.
        when (foldl' (+) 0 [1 .. 200000 + i] < 0) $ putStrLn "overflow"
        performMajorGC
        done <- doesFileExist stop
        unless done (loop (i + 1))
  loop (0 :: Int)
  putStrLn ("entries " ++ show (M.size m))
