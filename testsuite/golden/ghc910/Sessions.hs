-- testsuite/golden/ghc910/Sessions.hs -- the program behind the GHC 9.10
-- golden eventlogs (scripts/ghc-goldens.sh): a session cache that grows
-- for three phases, each marked, while short-lived work comes and goes.
-- Built with -finfo-table-map -fdistinct-constructor-tables for -hi and
-- -hT, and with -prof for -he, -hc, -hy and -hd.
module Main (main) where

import Control.Monad (foldM, forM_)
import Data.IORef
import qualified Data.Map.Strict as M
import Debug.Trace (traceMarkerIO)
import System.Mem (performMajorGC)

data Session = Session !Int ![Int] !String

newSession :: Int -> Session
newSession k = Session k [k .. k + 20] ("session-" ++ show k)

-- Short-lived work: a list built and summed, garbage by the next GC.
churn :: Int -> Int
churn n = sum (map (* 3) [1 .. n])

phase :: IORef (M.Map Int Session) -> Int -> IO ()
phase cache p = do
  traceMarkerIO ("phase " ++ show p)
  forM_ [1 .. 40 :: Int] $ \step -> do
    let base = p * 100000 + step * 1000
    modifyIORef' cache (\m -> foldl (\acc k -> M.insert k (newSession k) acc) m [base .. base + 199])
    s <- foldM (\acc k -> return $! acc + churn (k `mod` 50 + 50)) 0 [1 .. 2000 :: Int]
    s `seq` performMajorGC

main :: IO ()
main = do
  cache <- newIORef M.empty
  mapM_ (phase cache) [1 .. 3]
  m <- readIORef cache
  print (M.size m, M.foldl' (\acc (Session k xs _) -> acc + k + length xs) 0 m)
