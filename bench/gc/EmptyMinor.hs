-- bench/gc/EmptyMinor.hs -- GHC's minor GC when nothing in the nursery is
-- alive: built -O0 (bench/gc/run), the loop boxes every Int and Integer it
-- makes and keeps none but the latest, so each minor GC copies a few words.
-- Its `+RTS -s` gives the generation-0 collections and their CPU time.
--
--   empty-minor N     counts to N; prints N
module Main (main) where

import System.Environment (getArgs)

loop :: Int -> Integer -> Integer
loop 0 acc = acc
loop k acc = loop (k - 1) (acc + 1)

main :: IO ()
main = do
  args <- getArgs
  case args of
    [n] -> print (loop (read n) 0)
    _ -> putStrLn "usage: empty-minor N"
