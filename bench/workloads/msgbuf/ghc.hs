{-# LANGUAGE BangPatterns #-}
-- bench/workloads/msgbuf -- the message buffer of Pusher's latency
-- benchmark (gc-latency-experiment), in Haskell.
--
-- A window of W messages of 1 KiB in a boxed mutable array (IOArray);
-- push i makes message i (a ByteString of 1024 bytes, each i mod 256,
-- which bytestring allocates as a pinned byte array) and stores it in
-- slot i mod W.  Each push, from making the message to storing it, is
-- timed with the monotonic clock.  Prints the window, the count and a
-- checksum of the last window's messages (first, middle and last byte of
-- each) on stdout, as strata.c does, and the worst push on stderr:
--
--     worst push: 12.345 ms
--
--     ghc <window> <pushes> [+RTS ... -RTS]
module Main (main) where

import Control.Exception (evaluate)
import Data.Array.Base (unsafeRead, unsafeWrite)
import Data.Array.IO (IOArray, newArray)
import qualified Data.ByteString as B
import Data.Word (Word64)
import GHC.Clock (getMonotonicTimeNSec)
import Numeric (showFFloat)
import System.Environment (getArgs)
import System.Exit (exitWith, ExitCode (ExitFailure))
import System.IO (hPutStrLn, stderr)

messageBytes :: Int
messageBytes = 1024

makeMessage :: Int -> B.ByteString
makeMessage n = B.replicate messageBytes (fromIntegral n)

-- Pushes i .. n-1; returns the worst push in nanoseconds.
pushAll :: IOArray Int B.ByteString -> Int -> Int -> Int -> Word64 -> IO Word64
pushAll buffer !w !n !i !worst
  | i >= n = return worst
  | otherwise = do
      t0 <- getMonotonicTimeNSec
      m <- evaluate (makeMessage i)
      unsafeWrite buffer (i `rem` w) m
      t1 <- getMonotonicTimeNSec
      pushAll buffer w n (i + 1) (max worst (t1 - t0))

checksum :: IOArray Int B.ByteString -> Int -> IO Int
checksum buffer w = go 0 0
  where
    go !i !s
      | i >= w = return s
      | otherwise = do
          m <- unsafeRead buffer i
          let byte k = fromIntegral (B.index m k) :: Int
              s' | B.null m = s
                 | otherwise = s + byte 0 + byte (messageBytes `div` 2) + byte (messageBytes - 1)
          go (i + 1) s'

main :: IO ()
main = do
  args <- getArgs
  (w, n) <- case map reads args of
    [[(w, "")], [(n, "")]] | w >= 1 && n >= 0 -> return (w, n)
    _ -> do
      hPutStrLn stderr "usage: ghc WINDOW PUSHES [+RTS ... -RTS]"
      exitWith (ExitFailure 2)
  buffer <- newArray (0, w - 1) B.empty :: IO (IOArray Int B.ByteString)
  worst <- pushAll buffer w n 0 0
  s <- checksum buffer w
  putStrLn ("msgbuf window=" ++ show w ++ " pushes=" ++ show n ++ " checksum=" ++ show s)
  hPutStrLn stderr ("worst push: " ++ showFFloat (Just 3) (fromIntegral worst / 1e6 :: Double) " ms")
