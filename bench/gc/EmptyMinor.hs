-- bench/gc/EmptyMinor.hs -- GHC's minor GC when nothing in the nursery is
-- alive: built -O0 (bench/gc/run), the loop boxes every Int and Integer it
-- makes and keeps none but the latest, so each minor GC copies a few words.
-- Its `+RTS -s` gives the generation-0 collections and their CPU time.
--
--   empty-minor N     counts to N; prints N
module Main (main) where

import System.Environment (getArgs)

-- `seq` forces the sum at each step: at -O0 nothing else would, and the
-- unforced additions would pile up as a live chain of thunks (a
-- gigabyte at 20000000) that every GC copies.
loop :: Int -> Integer -> Integer
loop 0 acc = acc
loop k acc = let acc' = acc + 1 in acc' `seq` loop (k - 1) acc'

main :: IO ()
main = do
  args <- getArgs
  case args of
    [n] -> print (loop (read n) 0)
    _ -> putStrLn "usage: empty-minor N"
