-- bench/workloads/binary-trees/ghc.hs -- binary-trees in Haskell, the same
-- algorithm, sizes and output as strata.c (examples/bintrees.c).
--
-- A long-lived tree of depth DEPTH lives throughout; for each depth
-- d = 4, 6, ..., DEPTH, 2^(DEPTH - d + 4) short-lived trees of depth d are
-- built, checked and discarded.  `make` forces both subtrees before it
-- builds a node, so each tree is built whole before it is checked, as in
-- the C versions.  Compile with -fno-cse -fno-full-laziness (ghc-flags),
-- or GHC floats `make d` out of the loop and builds each tree only once.
--
--     bench/out/binary-trees/ghc 21 +RTS -s -RTS
{-# LANGUAGE BangPatterns #-}
module Main (main) where

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

main :: IO ()
main = do
  args <- getArgs
  n <- case args of
    [] -> return 10
    [s] | [(v, "")] <- reads s, v >= 0, v <= 30 -> return v
    _ -> do
      hPutStrLn stderr "usage: ghc DEPTH (0..30) [+RTS ... -RTS]"
      exitWith (ExitFailure 2)
  let maxDepth = max (minDepth + 2) n
      stretch = maxDepth + 1
  putStrLn ("stretch tree of depth " ++ show stretch ++ "\t check: "
            ++ show (check (make stretch)))
  let !long = make maxDepth
  mapM_ (\d -> do
           let iterations = 1 `shiftL` (maxDepth - d + minDepth)
           putStrLn (show iterations ++ "\t trees of depth " ++ show d
                     ++ "\t check: " ++ show (sumTrees d iterations)))
        [minDepth, minDepth + 2 .. maxDepth]
  putStrLn ("long lived tree of depth " ++ show maxDepth ++ "\t check: "
            ++ show (check long))
