{-# LANGUAGE BangPatterns #-}
-- bench/workloads/mutarray -- mutation-heavy: a large boxed mutable array
-- written with young values (Haskell).
--
-- An IOArray of N boxed Ints, filled with i.  Then PASSES passes of N steps:
-- pick a pseudo-random index j, read a[j] = v, add v to a running sum and
-- write a freshly allocated box (3v + pass) mod 2^30 back to a[j] (forced
-- before the write, as strata.c does).  Prints the running sum and the sum
-- of the final array.
module Main (main) where

import Data.Array.Base (unsafeRead, unsafeWrite)
import Data.Array.IO (IOArray, newArray_)
import Data.Bits (shiftR, (.&.))
import Data.Word (Word64)
import System.Environment (getArgs)

passes :: Int
passes = 10

mask :: Int
mask = 2 ^ (30 :: Int) - 1

main :: IO ()
main = do
  args <- getArgs
  let n = case args of
        [a] -> read a
        _ -> 1000000 :: Int
  arr <- newArray_ (0, n - 1) :: IO (IOArray Int Int)
  let fill :: Int -> IO ()
      fill !i | i >= n = return ()
              | otherwise = unsafeWrite arr i i >> fill (i + 1)
  fill 0
  let run :: Int -> Int -> Word64 -> Int -> IO Int
      run !p !s !g !acc
        | p > passes = return acc
        | s >= n = run (p + 1) 0 g acc
        | otherwise = do
            let !g' = g * 6364136223846793005 + 1442695040888963407
                !j = fromIntegral ((g' `shiftR` 33) `mod` fromIntegral n) :: Int
            v <- unsafeRead arr j
            let !v' = (3 * v + p) .&. mask
            unsafeWrite arr j v'
            run p (s + 1) g' (acc + v)
  running <- run 1 0 (42 :: Word64) 0
  let total :: Int -> Int -> IO Int
      total !i !acc | i >= n = return acc
                    | otherwise = do
                        v <- unsafeRead arr i
                        total (i + 1) (acc + v)
  final <- total 0 0
  putStrLn ("mutarray n=" ++ show n ++ " passes=" ++ show passes ++ " running=" ++ show running
            ++ " final=" ++ show final)
