/*
 * wc_tmptree.h — removal of a temporary directory tree wattcal created itself
 * (the simulated node's powercap tree, test trees). Never used on /proc or /sys.
 */
#ifndef WC_TMPTREE_H
#define WC_TMPTREE_H

/* rm -rf of dir without following symlinks. Returns 0 or -errno of the first
 * entry that could not be removed. */
int wc_remove_tree(const char *dir);

#endif
