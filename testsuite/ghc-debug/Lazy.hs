-- testsuite/ghc-debug/Lazy.hs -- a GHC program whose heap holds exactly
-- 1,000 unevaluated thunks of one kind (a cache of results never asked
-- for) and 1,000 equal copies of one constructor, each list held whole,
-- for the thunks, duplicates and dominators analyses
-- (testsuite/scripts/ghc-debug.sh).  Built with -finfo-table-map but not
-- -fdistinct-constructor-tables, so that the copies share one info table.
-- The stub starts from STRATA_DEBUG_SOCKET; the file named by the argument
-- ends it.
import Control.Monad (forM)
import Data.IORef (newIORef, readIORef)
import System.Environment (getArgs)

import Steady (readyUntil)

data Hit = Hit !Int

-- A value the compiler cannot compute in advance, so each call allocates.
hit :: Int -> IO Hit
hit i = return $! Hit (i `div` 100000)
{-# NOINLINE hit #-}

-- Costly enough that nothing evaluates it early.
slow :: Int -> Int
slow n = sum [1 .. n * 1000]
{-# NOINLINE slow #-}

main :: IO ()
main = do
  [stop] <- getArgs
  hits <- forM [1 .. 1000] hit
  pending <- newIORef (map slow [1 .. 1000])
  ps <- readIORef pending
  putStrLn ("hits " ++ show (length hits) ++ ", pending " ++ show (length ps))
  readyUntil stop
  putStrLn ("hits " ++ show (length [() | Hit 0 <- hits]) ++ ", first " ++ show (sum (take 1 ps)))
