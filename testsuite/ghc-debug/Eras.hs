-- testsuite/ghc-debug/Eras.hs -- a -prof program run with +RTS -he: each
-- phase starts an era (GHC.Profiling.Eras) and adds sessions to a list
-- that is never emptied, so every older era is held by the newer ones
-- through the list (testsuite/scripts/ghc-debug.sh: the era boundary).
-- The stub starts from STRATA_DEBUG_SOCKET.
import Control.Monad (forM_)
import Data.IORef (modifyIORef', newIORef, readIORef)
import GHC.Profiling.Eras (incrementUserEra)
import System.Environment (getArgs)

import Steady (readyUntil)

data Session = Session !Int [Int]

main :: IO ()
main = do
  [stop] <- getArgs
  ref <- newIORef []
  forM_ [1 .. 5 :: Int] $ \phase -> do
    _ <- incrementUserEra 1
    forM_ [1 .. 1000] $ \i -> modifyIORef' ref (Session (phase * 10000 + i) [i, i + 1] :)
  readyUntil stop
  readIORef ref >>= \ss -> putStrLn ("sessions " ++ show (length ss))
