/* Output files written to a temporary and renamed into place (output.h). */
#include "output.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int fail(char *why, size_t size, const char *path, int err)
{
    snprintf(why, size, "cannot write %s: %s", path, strerror(err));
    return -1;
}

/* The mode a new file gets from open(2): 0666 less the umask. */
static mode_t default_mode(void)
{
    mode_t mask = umask(0);
    umask(mask);
    return 0666 & ~mask;
}

/* The descriptor standard output was moved to by cli_output_claim_stdout; -1
 * before, and again once a file has taken it (standard output holds one file). */
static int claimed_stdout = -1;
static int stdout_claimed;

int cli_output_claim_stdout(void)
{
    if (stdout_claimed)
        return 0;
    if (isatty(STDOUT_FILENO)) {
        errno = ENOTTY;
        return -1;
    }
    fflush(stdout);
    int fd = dup(STDOUT_FILENO);
    if (fd < 0)
        return -1;
    if (dup2(STDERR_FILENO, STDOUT_FILENO) < 0) {
        int err = errno;
        close(fd);
        errno = err;
        return -1;
    }
    claimed_stdout = fd;
    stdout_claimed = 1;
    return 0;
}

const char *cli_output_name(const char *path)
{
    return strcmp(path, "-") ? path : "standard output";
}

static int open_stdout(cli_output *o, char *why, size_t size)
{
    if (cli_output_claim_stdout() != 0)
        return fail(why, size, o->path, errno);
    if (claimed_stdout < 0)
        return fail(why, size, o->path, EBUSY); /* a second file for standard output */
    if (!(o->f = fdopen(claimed_stdout, "wb")))
        return fail(why, size, o->path, errno);
    claimed_stdout = -1; /* closed with o->f */
    return 0;
}

int cli_output_open(cli_output *o, const char *path, char *why, size_t size)
{
    memset(o, 0, sizeof *o);
    o->path = cli_output_name(path);
    if (!strcmp(path, "-"))
        return open_stdout(o, why, size);
    /* Follow a symbolic link to the file it names; a name not there yet stays as given. */
    if (!realpath(path, o->target)) {
        if (errno != ENOENT || strlen(path) >= sizeof o->target)
            return fail(why, size, path, errno == ENOENT ? ENAMETOOLONG : errno);
        strcpy(o->target, path);
    }
    struct stat st;
    int exists = stat(o->target, &st) == 0;
    if (exists && !S_ISREG(st.st_mode)) { /* a device or a FIFO: nothing to rename over */
        o->f = fopen(o->target, "wb");
        return o->f ? 0 : fail(why, size, path, errno);
    }
    const char *slash = strrchr(o->target, '/');
    int folder = slash ? (int)(slash - o->target + 1) : 0;
    if (snprintf(o->temporary, sizeof o->temporary, "%.*s.%s.XXXXXX", folder, o->target,
                 o->target + folder) >= (int)sizeof o->temporary)
        return fail(why, size, path, ENAMETOOLONG);
    int fd = mkstemp(o->temporary);
    if (fd < 0) {
        o->temporary[0] = '\0';
        return fail(why, size, path, errno);
    }
    /* mkstemp makes the file 0600: give it the mode the target has, or a new file would get. */
    if (fchmod(fd, exists ? st.st_mode & 07777 : default_mode()) != 0 || !(o->f = fdopen(fd, "wb"))) {
        int err = errno;
        close(fd);
        unlink(o->temporary);
        o->temporary[0] = '\0';
        return fail(why, size, path, err);
    }
    return 0;
}

void cli_output_write(cli_output *o, const void *data, size_t bytes)
{
    if (o->error)
        return;
    errno = 0;
    if (fwrite(data, 1, bytes, o->f) != bytes)
        o->error = errno ? errno : EIO;
}

int cli_output_finish(cli_output *o, char *why, size_t size)
{
    int err = o->error;
    errno = 0;
    if (!err && (fflush(o->f) != 0 || ferror(o->f)))
        err = errno ? errno : EIO;
    if (!err && o->temporary[0] && fsync(fileno(o->f)) != 0)
        err = errno;
    if (fclose(o->f) != 0 && !err)
        err = errno ? errno : EIO;
    o->f = NULL;
    if (err) {
        if (o->temporary[0])
            unlink(o->temporary);
        o->temporary[0] = '\0';
        return fail(why, size, o->path, err);
    }
    return 0;
}

int cli_output_commit(cli_output *o, char *why, size_t size)
{
    if (o->temporary[0] && rename(o->temporary, o->target) != 0) {
        int err = errno;
        unlink(o->temporary);
        o->temporary[0] = '\0';
        return fail(why, size, o->path, err);
    }
    o->temporary[0] = '\0';
    return 0;
}

int cli_output_close(cli_output *o, char *why, size_t size)
{
    return cli_output_finish(o, why, size) != 0 ? -1 : cli_output_commit(o, why, size);
}

void cli_output_discard(cli_output *o)
{
    if (o->f)
        fclose(o->f);
    o->f = NULL;
    if (o->temporary[0])
        unlink(o->temporary);
    o->temporary[0] = '\0';
}
