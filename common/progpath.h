/*
 * Finding a companion program (perfsweep-bind) of an installed or a built
 * perfsweep, without the source tree: first beside the running executable
 * (/proc/self/exe, symlinks resolved), then in PATH.  No environment
 * variable or working directory is consulted.
 */
#ifndef PS_PROGPATH_H
#define PS_PROGPATH_H

/*
 * The absolute path of the executable file `name` in the directory of the
 * running program, else the first in $PATH.  Returns a string the caller
 * frees, or NULL when neither has it.  name has no '/'.
 */
char *progpath_find(const char *name);

/* The same search with the directory of the running program given: self_dir
   (NULL: none) and path (the PATH value, NULL: none).  For tests. */
char *progpath_find_in(const char *name, const char *self_dir, const char *path);

#endif
