{-# LANGUAGE BangPatterns #-}
-- bench/workloads/map-churn -- long-lived data with steady churn (Haskell).
--
-- A persistent weight-balanced binary search tree (the algorithm of
-- Data.Map: delta 3, ratio 2, single/double rotations), written out by hand
-- so that it matches strata.c node for node, Int keys and values unpacked.
-- Build the tree of the N even keys 0, 2, .., 2N-2 (perfectly balanced, in
-- O(N)), then N/8 rounds of churn: insert one pseudo-random key from
-- [0, 2N), delete another.  Prints the size and a checksum.
module Main (main) where

import Data.Bits (shiftR)
import Data.Word (Word64)
import System.Environment (getArgs)

data Map = Tip
         | Bin {-# UNPACK #-} !Int {-# UNPACK #-} !Int {-# UNPACK #-} !Int !Map !Map
           -- size key value left right

delta, ratio :: Int
delta = 3
ratio = 2

size :: Map -> Int
size Tip = 0
size (Bin s _ _ _ _) = s

bin :: Int -> Int -> Map -> Map -> Map
bin k v l r = Bin (size l + size r + 1) k v l r

balance :: Int -> Int -> Map -> Map -> Map
balance k v l r
  | sl + sr <= 1 = bin k v l r
  | sr > delta * sl = rotateL k v l r
  | sl > delta * sr = rotateR k v l r
  | otherwise = bin k v l r
  where
    sl = size l
    sr = size r

rotateL :: Int -> Int -> Map -> Map -> Map
rotateL k v l r@(Bin _ _ _ rl rr)
  | size rl < ratio * size rr = singleL k v l r
  | otherwise = doubleL k v l r
rotateL _ _ _ Tip = error "rotateL"

rotateR :: Int -> Int -> Map -> Map -> Map
rotateR k v l@(Bin _ _ _ ll lr) r
  | size lr < ratio * size ll = singleR k v l r
  | otherwise = doubleR k v l r
rotateR _ _ Tip _ = error "rotateR"

singleL, singleR, doubleL, doubleR :: Int -> Int -> Map -> Map -> Map
singleL k1 v1 t1 (Bin _ k2 v2 t2 t3) = bin k2 v2 (bin k1 v1 t1 t2) t3
singleL _ _ _ Tip = error "singleL"
singleR k1 v1 (Bin _ k2 v2 t1 t2) t3 = bin k2 v2 t1 (bin k1 v1 t2 t3)
singleR _ _ Tip _ = error "singleR"
doubleL k1 v1 t1 (Bin _ k2 v2 (Bin _ k3 v3 t2 t3) t4) =
  bin k3 v3 (bin k1 v1 t1 t2) (bin k2 v2 t3 t4)
doubleL _ _ _ _ = error "doubleL"
doubleR k1 v1 (Bin _ k2 v2 t1 (Bin _ k3 v3 t2 t3)) t4 =
  bin k3 v3 (bin k2 v2 t1 t2) (bin k1 v1 t3 t4)
doubleR _ _ _ _ = error "doubleR"

insert :: Int -> Int -> Map -> Map
insert !k !v Tip = Bin 1 k v Tip Tip
insert k v (Bin s kx x l r)
  | k < kx = balance kx x (insert k v l) r
  | k > kx = balance kx x l (insert k v r)
  | otherwise = Bin s k v l r

data MinMax = MinMax {-# UNPACK #-} !Int {-# UNPACK #-} !Int !Map

deleteFindMin :: Map -> MinMax
deleteFindMin (Bin _ k x Tip r) = MinMax k x r
deleteFindMin (Bin _ k x l r) =
  case deleteFindMin l of MinMax km m l' -> MinMax km m (balance k x l' r)
deleteFindMin Tip = error "deleteFindMin"

deleteFindMax :: Map -> MinMax
deleteFindMax (Bin _ k x l Tip) = MinMax k x l
deleteFindMax (Bin _ k x l r) =
  case deleteFindMax r of MinMax km m r' -> MinMax km m (balance k x l r')
deleteFindMax Tip = error "deleteFindMax"

glue :: Map -> Map -> Map
glue Tip r = r
glue l Tip = l
glue l r
  | size l > size r = case deleteFindMax l of MinMax km m l' -> balance km m l' r
  | otherwise = case deleteFindMin r of MinMax km m r' -> balance km m l r'

delete :: Int -> Map -> Map
delete !_ Tip = Tip
delete k (Bin _ kx x l r)
  | k < kx = balance kx x (delete k l) r
  | k > kx = balance kx x l (delete k r)
  | otherwise = glue l r

-- The tree of keys 2i, values i, for i in [lo, lo + cnt).
build :: Int -> Int -> Map
build !_ 0 = Tip
build lo cnt = bin (2 * mid) mid (build lo nl) (build (mid + 1) (cnt - nl - 1))
  where
    nl = cnt `div` 2
    mid = lo + nl

-- In-order fold: (checksum, previous key, ordered so far).
data Acc = Acc !Word64 !Int !Bool

foldTree :: Acc -> Map -> Acc
foldTree acc Tip = acc
foldTree acc (Bin _ k v l r) =
  case foldTree acc l of
    Acc s prev ok ->
      foldTree (Acc (s * 31 + fromIntegral k * 7 + fromIntegral v) k (ok && k > prev)) r

balanced :: Map -> Bool
balanced Tip = True
balanced (Bin s _ _ l r) =
  (sl + sr <= 1 || (sl <= delta * sr && sr <= delta * sl))
    && s == sl + sr + 1 && balanced l && balanced r
  where
    sl = size l
    sr = size r

-- The key stream: a 64-bit LCG, key = (state >> 33) mod range.
step :: Word64 -> Word64
step x = x * 6364136223846793005 + 1442695040888963407

keyOf :: Int -> Word64 -> Int
keyOf range x = fromIntegral ((x `shiftR` 33) `mod` fromIntegral range)

main :: IO ()
main = do
  args <- getArgs
  let n = case args of
        [a] -> read a
        _ -> 1000000 :: Int
      range = 2 * n
      churn !i !g !t
        | i >= n `div` 8 = t
        | otherwise =
            let g1 = step g
                !t1 = insert (keyOf range g1) i t
                g2 = step g1
                !t2 = delete (keyOf range g2) t1
            in churn (i + 1) g2 t2
      !built = build 0 n
      !builtSize = size built
      final = churn 0 42 built
      Acc sumv _ ordered = foldTree (Acc 0 (-1) True) final
  putStrLn ("map-churn n=" ++ show n ++ " built=" ++ show builtSize ++ " size=" ++ show (size final)
            ++ " ordered=" ++ show (fromEnum ordered) ++ " balanced=" ++ show (fromEnum (balanced final))
            ++ " checksum=" ++ show sumv)
