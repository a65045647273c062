/* mpi_train.c — `tools/train --mpi` (mpi_train.h). */
#include "train/mpi_train.h"
#include <stdio.h>
#include <string.h>
#ifdef ZZ_HAVE_MPI
#include "train/mpi_hub.h"
#include "train/mpi_worker.h"
#include <mpi.h>

int tr_mpi_available(void) { return 1; }

int tr_mpi_train(tr_run_config *c, tr_run_result *r, int *rank_out, char *err, size_t errlen) {
    memset(r, 0, sizeof *r);
    err[0] = 0;
    int provided = 0, rank = 0, size = 1;
    if (MPI_Init_thread(NULL, NULL, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS) {
        snprintf(err, errlen, "MPI_Init_thread failed (is this run under mpirun?)");
        *rank_out = 0;
        return 1;
    }
    /* errors come back as codes, so that a failure is a clear message, not a bare abort */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    *rank_out = rank;
    if (provided < MPI_THREAD_FUNNELED) {
        if (rank == 0) fprintf(stderr, "zertz: train: --mpi: this MPI library does not allow threads (MPI_THREAD_FUNNELED)\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    if (rank != 0) {
        char why[512];
        int wr = tr_mpi_worker(rank, &c->sp, c->stop, why, sizeof why);
        if (wr < 0) {
            fprintf(stderr, "zertz: train: rank %d: %s (ending the job)\n", rank, why);
            fflush(stderr);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        if (wr == 1) return 1;              /* a signal: the launcher is ending the job */
        MPI_Finalize();
        return wr == 2 ? 1 : 0;
    }
    tr_mpi_hub *h = tr_mpi_hub_new(size, c->quiet);
    if (!h) {
        fprintf(stderr, "zertz: train: out of memory\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    c->remote = tr_mpi_hub_remote(h);
    if (!c->quiet) {
        printf("zertz train: MPI job of %d ranks: rank 0 trains and plays, ", size);
        if (size > 1) printf("ranks 1..%d play\n", size - 1);
        else printf("no other rank\n");
        fflush(stdout);
    }
    int rc = tr_run(c, r, err, errlen);
    if (rc == 0) err[0] = 0;
    char why[512];
    if (tr_mpi_hub_close(h, why, sizeof why) != 0 && rc == 0) { snprintf(err, errlen, "%s", why); rc = -1; }
    if (rc == 0 || r->session_games) tr_mpi_hub_report(h, stdout);
    fflush(stdout);
    int clean = tr_mpi_hub_clean(h);
    tr_mpi_hub_free(h);
    if (c->stop && *c->stop) return 1;      /* a signal: the state is saved, the launcher ends the job */
    if (!clean) {             /* a worker may still run: end the job */
        fprintf(stderr, "zertz: train: %s: %s (ending the job)\n", c->out, rc ? err : "the workers did not stop");
        fflush(stderr);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    MPI_Finalize();
    return rc == 0 ? 0 : 1;
}
#else
int tr_mpi_available(void) { return 0; }

int tr_mpi_train(tr_run_config *c, tr_run_result *r, int *rank, char *err, size_t errlen) {
    (void)c;
    memset(r, 0, sizeof *r);
    *rank = 0;
    snprintf(err, errlen, "--mpi: this build has no MPI (mpicc was not found when it was built): "
                          "install Open MPI (apt-get install openmpi-bin libopenmpi-dev) and rebuild");
    return 2;
}
#endif
