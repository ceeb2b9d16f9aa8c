// rdtscp-shim.so: lets Debian's GROMACS start on a virtual machine whose
// CPUID hides the RDTSCP flag although the instruction works.
//
// gmx mdrun checks, once at start-up, that the CPU it runs on has every
// instruction it was compiled to use, and refuses RDTSCP when CPUID does
// not list it ("compiled to use the rdtscp CPU instruction. However, this
// is not supported by the current hardware").  This library, given to gmx
// through LD_PRELOAD, takes the place of gmx::CpuInfo::detect(): it calls
// the real one and adds RDTSCP to the feature set it returns.  Nothing else
// changes: the MD loop, its timers and the numbers are GROMACS's own.
//
// Use it only where gmx refuses and the instruction works (gmx-shim.sh
// checks both); on a CPU without RDTSCP the timers would fault.
//
// It assumes the layout of gmx::CpuInfo of GROMACS 2018-2023 (below), and
// touches the object only when that layout holds: the feature named "sse2",
// which every x86-64 CPU has, must be in the set where the layout puts it.
// Build: c++ -O2 -shared -fPIC -o rdtscp-shim.so rdtscp-shim.cpp -ldl
#include <dlfcn.h>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

namespace gmx
{
// The data members of GROMACS's CpuInfo (src/gromacs/hardware/cpuinfo.h), in order.
class CpuInfo
{
public:
	enum class SupportLevel : int { None };
	enum class Vendor : int { Unknown };
	enum class Feature : int { First };
	struct LogicalProcessor
	{
		int socketRankInMachine, coreRankInSocket, hwThreadRankInCore, numaNodeId;
	};
	static CpuInfo detect();
	static const std::string &featureString(Feature f);

	SupportLevel supportLevel_;
	Vendor vendor_;
	std::string brandString_;
	int family_, model_, stepping_;
	std::set<Feature> features_;
	std::vector<LogicalProcessor> logicalProcessors_;
};
} // namespace gmx

// The enum value GROMACS's own table gives a feature name, or -1.
static int featureNamed(const char *name)
{
	for (int f = 0; f < 256; f++) {
		try {
			if (gmx::CpuInfo::featureString(static_cast<gmx::CpuInfo::Feature>(f)) == name)
				return f;
		} catch (const std::exception &) {
			return -1;      // past the end of the table
		}
	}
	return -1;
}

gmx::CpuInfo gmx::CpuInfo::detect()
{
	using Detect = CpuInfo (*)();
	auto real = reinterpret_cast<Detect>(dlsym(RTLD_NEXT, "_ZN3gmx7CpuInfo6detectEv"));
	CpuInfo info = real();
	int sse2 = featureNamed("sse2"), rdtscp = featureNamed("rdtscp");
	if (sse2 >= 0 && rdtscp >= 0 && info.features_.count(static_cast<Feature>(sse2)))
		info.features_.insert(static_cast<Feature>(rdtscp));
	return info;
}
