"""All-pairs shortest paths (Floyd-Warshall), in place on the matrix of edge lengths."""


def floyd_warshall(n, path):
    for k in range(n):
        for i in range(n):
            for j in range(n):
                path[i, j] = (path[i, j] if path[i, j] < path[i, k] + path[k, j]
                              else path[i, k] + path[k, j])
