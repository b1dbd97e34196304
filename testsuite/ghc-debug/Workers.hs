-- testsuite/ghc-debug/Workers.hs -- two Haskell threads at work on two
-- capabilities (+RTS -N2), each building and folding maps round after
-- round, so that a pause stops them mid-work; the output depends only on
-- the arguments, so a run paused again and again must print what a run
-- never paused prints (testsuite/scripts/ghc-debug.sh).  The stub starts
-- from STRATA_DEBUG_SOCKET when that is set.
import Control.Concurrent (forkOn, newEmptyMVar, putMVar, takeMVar)
import Control.Monad (forM)
import Data.List (foldl')
import qualified Data.Map.Strict as M
import System.Environment (getArgs)
import System.IO (hFlush, stdout)

work :: Int -> Int -> Int
work seed rounds = foldl' step 0 [1 .. rounds]
  where
    step acc r =
      let m = M.fromList [(k * 7919 `mod` 10007, k + r + seed) | k <- [1 .. 2000 :: Int]]
      in (acc * 31 + M.foldl' (+) 0 m) `mod` 1000000007

main :: IO ()
main = do
  [rounds] <- map read <$> getArgs
  putStrLn "working"
  hFlush stdout
  done <- forM [0, 1] $ \w -> do
    v <- newEmptyMVar
    _ <- forkOn w (putMVar v $! work w rounds)
    return v
  results <- mapM takeMVar done
  print results
