// Package outdir owns an output folder of run, report and calibrate: one
// command at a time holds it (a lock), writes into a staging folder inside
// it, and commits what it wrote as a whole.
//
// A folder's state is its commit marker, .claimaudit-out.json: the files the
// tool wrote there, the run they belong to and whether the last commit
// finished. A commit first rewrites the marker as "committing" (listing the
// old and the new files), moves the staged files into place, removes the
// files of the older run that the new commit does not keep, and rewrites the
// marker as "committed". Readers (Check) accept a folder whose marker says
// committed, or a folder the tool never wrote; a folder whose marker says
// committing, or that holds a lock or staging area but no marker, is
// incomplete. The tool never deletes a file it did not write: a folder
// holding anything else is refused unless the caller forces it, and then the
// foreign files are left alone and recorded as kept.
package outdir
