-- testsuite/ghc-debug/NoStub.hs -- a program that strata-debug cannot
-- debug: built without the stub (strata-debug --pid must say so), or,
-- linked with it but without -threaded, one whose stub refuses to start
-- (testsuite/scripts/ghc-debug.sh).  Runs until the file named by its
-- argument appears.
import Control.Concurrent (threadDelay)
import Control.Monad (unless)
import System.Directory (doesFileExist)
import System.Environment (getArgs)
import System.IO (hFlush, stdout)

main :: IO ()
main = do
  [stop] <- getArgs
  putStrLn "ready"
  hFlush stdout
  let idle = do
        threadDelay 20000
        done <- doesFileExist stop
        unless done idle
  idle
