/* What the tuner knows about a GPU: read from the runner on a real device,
 * or taken from a table of typical limits for `list --arch sm_XY`. */
#ifndef BARTUNE_DEVICE_H
#define BARTUNE_DEVICE_H

#include <jansson.h>
#include <stdbool.h>

typedef struct {
    char name[128];
    int cc_major, cc_minor;
    int sms;
    int max_threads_per_block;
    int max_threads_per_sm;
    int max_blocks_per_sm;
    int smem_per_block_optin; /* bytes a block may have after opting in */
    int smem_per_sm;
    int regs_per_sm;
    int l2_bytes;
    int cuda_version; /* driver's CUDA version, e.g. 13000 */
    char driver[64];  /* kernel driver version, e.g. "580.95.05" */
} device_info;

/* "sm_90" -> typical limits of that architecture; false if unknown. */
bool device_for_arch(const char *arch, device_info *out);
/* "nvidia-h200-sm90": the folder name under results/ and kernels/. */
void device_key(const device_info *d, char out[160]);
/* Everything a measurement depends on besides the variant: a result taken
 * under another fingerprint is measured again. */
void device_fingerprint(const device_info *d, char out[320]);
/* "sm_90" */
void device_arch(const device_info *d, char out[16]);
/* The device as records and the runner write it: every field above. */
json_t *device_json(const device_info *d);
/* The inverse; false when a field is missing or of the wrong type. */
bool device_from_json(json_t *j, device_info *d);

#endif
