-- testsuite/ghc-debug/Leak.hs -- examples/leak.c in Haskell: a toy server
-- handles requests, each with a body of a kilobyte (a pinned ByteString),
-- and a session cache keeps, for one request in 64, a copy of its first
-- bytes that nothing ever evicts: the leak, and pinned blocks kept alive by
-- one small ByteString each (testsuite/scripts/ghc-debug.sh).  Built with
-- -finfo-table-map -fdistinct-constructor-tables, so that each constructor
-- names the function that allocates it.  It starts the stub itself, with
-- a foreign call, then serves until the file named by its last argument
-- appears.
import Control.Monad (foldM, when)
import qualified Data.ByteString as B
import Data.IORef (IORef, modifyIORef', newIORef, readIORef)
import Foreign.C.String (CString, withCString)
import Foreign.C.Types (CInt (..))
import System.Environment (getArgs)
import System.Exit (exitFailure)
import System.IO.Unsafe (unsafePerformIO)

import Steady (readyUntil)

foreign import ccall safe "strata_ghc_debug_start"
  strataDebugStart :: CString -> IO CInt

data SessionEntry = SessionEntry !Int !B.ByteString

-- The leak: a global cache that only grows.
sessionCache :: IORef [SessionEntry]
sessionCache = unsafePerformIO (newIORef [])
{-# NOINLINE sessionCache #-}

-- Remembers a request's session: a copy of the first bytes of its body.
remember :: Int -> B.ByteString -> IO ()
remember i body = do
  let payload = B.copy (B.take 48 body)
      entry = SessionEntry i payload
  entry `seq` modifyIORef' sessionCache (entry :)
{-# NOINLINE remember #-}

-- Handles one request: builds its body, remembers one in 64, reads it.
handle :: Int -> IO Int
handle i = do
  let body = B.replicate 1024 (fromIntegral i)
  when (i `mod` 64 == 0) $ remember i body
  return $! B.foldl' (\a w -> a + fromIntegral w) 0 body
{-# NOINLINE handle #-}

main :: IO ()
main = do
  [path, n, stop] <- getArgs
  started <- withCString path strataDebugStart
  when (started /= 0) exitFailure
  total <- foldM (\acc i -> (acc +) <$> handle i) 0 [1 .. read n]
  sessions <- length <$> readIORef sessionCache
  putStrLn ("served " ++ n ++ " requests, total " ++ show total ++ ", " ++ show sessions ++ " sessions")
  readyUntil stop
  readIORef sessionCache >>= \ss -> putStrLn ("sessions " ++ show (length ss))
