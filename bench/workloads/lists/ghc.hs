{-# LANGUAGE BangPatterns #-}
-- bench/workloads/lists -- an allocation-heavy list workload (Haskell).
--
-- REPS times: build xs = [1+r .. n+r] (boxed Ints in cons cells), map
-- (\x -> 3x + r) over it, filter the even results, then sum the filtered
-- list and take the length of xs (so xs stays alive across the map and the
-- filter).  Lists are built with accumulators, exactly as in strata.c, so
-- nothing fuses and every list is fully built before it is consumed.
module Main (main) where

import System.Environment (getArgs)

reps :: Int
reps = 10

-- [lo..hi], built from hi down.
upto :: Int -> Int -> [Int]
upto lo hi = go hi []
  where
    go !i acc | i < lo = acc
              | otherwise = go (i - 1) (i : acc)
{-# NOINLINE upto #-}

-- map (\x -> 3x + k), reversed, elements forced.
mapRev :: Int -> [Int] -> [Int]
mapRev !k = go []
  where
    go acc [] = acc
    go acc (x : xs) = let !y = 3 * x + k in go (y : acc) xs
{-# NOINLINE mapRev #-}

-- filter even, reversed.
filterEvenRev :: [Int] -> [Int]
filterEvenRev = go []
  where
    go acc [] = acc
    go acc (x : xs) | even x = go (x : acc) xs
                    | otherwise = go acc xs
{-# NOINLINE filterEvenRev #-}

sumL :: [Int] -> Int
sumL = go 0
  where
    go !s [] = s
    go !s (x : xs) = go (s + x) xs
{-# NOINLINE sumL #-}

lengthL :: [a] -> Int
lengthL = go 0
  where
    go !n [] = n
    go !n (_ : xs) = go (n + 1) xs
{-# NOINLINE lengthL #-}

main :: IO ()
main = do
  args <- getArgs
  let n = case args of
        [s] -> read s
        _ -> 1000000
      loop !rep !total !kept
        | rep >= reps = (total, kept)
        | otherwise =
            let xs = upto (1 + rep) (n + rep)
                ys = mapRev rep xs
                zs = filterEvenRev ys
                !l2 = lengthL zs
                !t = sumL zs + lengthL xs
            in loop (rep + 1) (total + t) (kept + l2)
      (total, kept) = loop 0 0 0
  putStrLn ("lists n=" ++ show n ++ " reps=" ++ show reps ++ " kept=" ++ show kept
            ++ " total=" ++ show total)
