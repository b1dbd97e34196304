-- bench/debug/ghc/SteadyTree.hs -- bench/debug/steady-heap.c in Haskell:
-- a binary tree of depth DEPTH (2^(DEPTH+1) - 1 Node constructors, 24
-- bytes each: 805 MB at depth 24), then short-lived depth-4 trees built
-- and dropped, and a path walked down the tree, until the program is
-- killed, so that every pause sees the same live heap.  Built with the GHC
-- stub, started from STRATA_DEBUG_SOCKET, and with -fno-full-laziness
-- -fno-cse, so that each leaf is a Node of its own as in strata's tree
-- (GHC would otherwise make the constant Node Nil Nil one static closure
-- that every leaf shares); run by bench/debug/ghc/run.
import Control.Monad (when)
import System.Environment (getArgs)
import System.IO (hFlush, stdout)

data Tree = Node Tree Tree | Nil

make :: Int -> Tree
make 0 = Node Nil Nil
make d = Node (make (d - 1)) (make (d - 1))

check :: Tree -> Int
check Nil = 0
check (Node l r) = 1 + check l + check r

-- The depth of the leaf that the bits of i lead to: a path through the
-- tree that changes with i, so that the tree stays alive (a check of the
-- whole tree once would be floated out of the loop, and the tree die).
walk :: Int -> Tree -> Int
walk _ Nil = 0
walk i (Node l r) = 1 + walk (i `div` 2) (if even i then l else r)

main :: IO ()
main = do
  [depth] <- map read <$> getArgs
  let tree = make depth
  putStrLn ("nodes " ++ show (check tree))
  putStrLn "ready"
  hFlush stdout
  let churn i = do
        when (check (make (4 + i `mod` 2)) < 31) $ putStrLn "bad tree"
        when (walk i tree /= depth + 1) $ putStrLn "lost the tree"
        churn (i + 1 :: Int)
  churn 1
