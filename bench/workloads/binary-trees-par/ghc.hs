-- bench/workloads/binary-trees-par/ghc.hs -- parallel binary-trees in
-- Haskell: the same algorithm, decomposition and output as strata.c
-- (examples/bintrees-par.c), with base only (forkOn and MVar; the
-- `parallel` package is not needed).
--
-- A long-lived tree of depth DEPTH lives in the main thread throughout.
-- For each depth d = 4, 6, ..., DEPTH the 2^(DEPTH - d + 4) short-lived
-- trees are split evenly over one worker per capability (+RTS -N): worker
-- w runs on capability w, builds and checks its share and hands back the
-- sum through an MVar, already evaluated, so that the work is done by the
-- worker and not by the main thread when it reads the MVar.  The main
-- thread waits for every worker of a depth before it starts the next.
-- Compile with -threaded -fno-cse -fno-full-laziness (ghc-flags), or GHC
-- floats `make d` out of the loop and builds each tree only once.
--
--     bench/out/binary-trees-par/ghc 21 +RTS -N2 -s -RTS
{-# LANGUAGE BangPatterns #-}
module Main (main) where

import Control.Concurrent (forkOn, getNumCapabilities)
import Control.Concurrent.MVar (newEmptyMVar, putMVar, takeMVar)
import Control.Exception (evaluate)
import Data.Bits (shiftL)
import System.Environment (getArgs)
import System.Exit (exitWith, ExitCode (..))
import System.IO (hPutStrLn, stderr)

data Tree = Nil | Node Tree Tree

minDepth :: Int
minDepth = 4

make :: Int -> Tree
make 0 = Node Nil Nil
make d = l `seq` r `seq` Node l r
  where
    l = make (d - 1)
    r = make (d - 1)

check :: Tree -> Int
check Nil = 0
check (Node l r) = 1 + check l + check r

-- The sum of `check (make d)` over n freshly built trees.
sumTrees :: Int -> Int -> Int
sumTrees d = go 0
  where
    go !acc 0 = acc
    go !acc i = go (acc + check (make d)) (i - 1)

-- The iterations of one depth split evenly over `workers` threads, the
-- first `iterations mod workers` of them taking one more.
runDepth :: Int -> Int -> Int -> IO Int
runDepth workers d iterations = do
  let (per, extra) = iterations `divMod` workers
  boxes <- mapM (\w -> do
                   box <- newEmptyMVar
                   let count = per + (if w < extra then 1 else 0)
                   _ <- forkOn w (evaluate (sumTrees d count) >>= putMVar box)
                   return box)
                [0 .. workers - 1]
  sums <- mapM takeMVar boxes
  return $! sum sums

main :: IO ()
main = do
  args <- getArgs
  n <- case args of
    [] -> return 10
    [s] | [(v, "")] <- reads s, v >= 0, v <= 30 -> return v
    _ -> do
      hPutStrLn stderr "usage: ghc DEPTH (0..30) [+RTS -N<n> ... -RTS]"
      exitWith (ExitFailure 2)
  workers <- getNumCapabilities
  let maxDepth = max (minDepth + 2) n
      stretch = maxDepth + 1
  putStrLn ("stretch tree of depth " ++ show stretch ++ "\t check: "
            ++ show (check (make stretch)))
  let !long = make maxDepth
  mapM_ (\d -> do
           let iterations = 1 `shiftL` (maxDepth - d + minDepth)
           total <- runDepth workers d iterations
           putStrLn (show iterations ++ "\t trees of depth " ++ show d
                     ++ "\t check: " ++ show total))
        [minDepth, minDepth + 2 .. maxDepth]
  putStrLn ("long lived tree of depth " ++ show maxDepth ++ "\t check: "
            ++ show (check long))
