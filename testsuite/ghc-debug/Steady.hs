-- testsuite/ghc-debug/Steady.hs -- the steady state of the test programs
-- of testsuite/scripts/ghc-debug.sh: say "ready", then collect again and
-- again (a census each time under +RTS -hT or -he) until the file stop
-- appears.
module Steady (readyUntil) where

import Control.Monad (unless)
import System.Directory (doesFileExist)
import System.IO (hFlush, stdout)
import System.Mem (performMajorGC)

readyUntil :: FilePath -> IO ()
readyUntil stop = do
  putStrLn "ready"
  hFlush stdout
  let idle = do
        performMajorGC
        done <- doesFileExist stop
        unless done idle
  idle
