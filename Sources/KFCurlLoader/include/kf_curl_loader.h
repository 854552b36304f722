#ifndef KF_CURL_LOADER_H
#define KF_CURL_LOADER_H

/*
 * KFCurlLoader has no API of its own: it defines libcurl's functions (those FoundationNetworking
 * calls) so that linking it into `kf` replaces libcurl's load at start-up by a load on first use.
 * See kf_curl_loader.c.
 */

#endif
